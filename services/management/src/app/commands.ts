import { ApiError, epochSeconds } from '@chat/contracts';
import type { Actor, ApiKeyScope, EventEnvelope } from '@chat/contracts';
import type { CommandMetadata, CommandRunner } from '@chat/eventsourcing';
import type { Logger } from 'pino';
import { appDecider, appStreamId, keyNamedBy } from '../domain/app.js';
import type { ApiKeyState, AppCommand, AppState, KeyRef } from '../domain/app.js';
import { keyRefFromParam, mintApiKey, newAppId } from './keys.js';

/** Who creates the keys every new app starts with (CometChat's value). */
export const APP_SYSTEM = 'app_system';

const managementActor: Actor = { appId: 'management', keyId: 'management', scope: 'management' };

export interface CommandDeps {
  /** The shared runner: appends, publishes and applies to this service's read models. */
  runner: CommandRunner;
  invalidator: { invalidateTwice(keyHashes: readonly string[]): Promise<void> };
  logger: Logger;
  /** The one region this deployment serves. */
  region: string;
  clock: () => Date;
}

export interface IssuedKey {
  apiKey: string;
  key: ApiKeyState;
}

export interface CreatedApp {
  app: Extract<AppState, { status: 'active' }>;
  /** In creation order; the only time these values are ever shown. */
  issuedKeys: IssuedKey[];
}

/** Hashes of the keys an event batch touches: what gateways must forget. */
export function keyHashesOf(events: readonly EventEnvelope[]): string[] {
  const hashes: string[] = [];
  for (const event of events) {
    const hash = event.data['keyHash'];
    if (event.type.startsWith('ApiKey') && typeof hash === 'string') hashes.push(hash);
  }
  return hashes;
}

export class ManagementCommands {
  constructor(private readonly deps: CommandDeps) {}

  async createApp(input: { name: string; region: string }, requestId: string): Promise<CreatedApp> {
    if (input.region !== this.deps.region) {
      throw new ApiError(
        'ERR_REGION_NOT_SERVED',
        `region: this deployment serves region '${this.deps.region}', not '${input.region}'.`,
      );
    }
    const appId = newAppId();
    const minted = [
      mintApiKey('Rest API Key', 'fullAccess', APP_SYSTEM),
      mintApiKey('Auth Key', 'authOnly', APP_SYSTEM),
    ];
    const now = this.deps.clock();
    const state = await this.run(
      appId,
      { type: 'CreateApp', appId, name: input.name, region: input.region, keys: minted.map((m) => m.record), now: epochSeconds(now) },
      { ...managementActor, appId },
      requestId,
      now,
    );
    if (state.status !== 'active') throw new Error('CreateApp left the app absent');
    return { app: state, issuedKeys: minted.map((m) => ({ apiKey: m.apiKey, key: this.keyOf(state, { keyId: m.record.keyId }) })) };
  }

  async createApiKey(actor: Actor, input: { name: string; scope: ApiKeyScope }, requestId: string): Promise<IssuedKey> {
    const minted = mintApiKey(input.name, input.scope, actor.keyId);
    const now = this.deps.clock();
    const state = await this.run(actor.appId, { type: 'CreateApiKey', key: minted.record, now: epochSeconds(now) }, actor, requestId, now);
    return { apiKey: minted.apiKey, key: this.keyOf(state, { keyId: minted.record.keyId }) };
  }

  async updateApiKey(
    actor: Actor,
    keyParam: string,
    changes: { name?: string | undefined; scope?: ApiKeyScope | undefined },
    requestId: string,
  ): Promise<ApiKeyState> {
    const key = this.refOf(keyParam);
    const now = this.deps.clock();
    const state = await this.run(
      actor.appId,
      {
        type: 'UpdateApiKey',
        key,
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.scope !== undefined ? { scope: changes.scope } : {}),
        callerKeyId: actor.keyId,
        now: epochSeconds(now),
      },
      actor,
      requestId,
      now,
    );
    return this.keyOf(state, key);
  }

  async deleteApiKey(actor: Actor, keyParam: string, requestId: string): Promise<void> {
    const key = this.refOf(keyParam);
    const now = this.deps.clock();
    await this.run(actor.appId, { type: 'DeleteApiKey', key, callerKeyId: actor.keyId, now: epochSeconds(now) }, actor, requestId, now);
  }

  private refOf(keyParam: string) {
    const ref = keyRefFromParam(keyParam);
    if (!ref) throw new ApiError('ERR_APIKEY_NOT_FOUND', 'The API key does not exist in this app.');
    return ref;
  }

  private keyOf(state: AppState, ref: KeyRef): ApiKeyState {
    const key = state.status === 'active' ? keyNamedBy(Object.values(state.keys), ref) : undefined;
    if (!key) throw new Error(`key ${JSON.stringify(ref)} missing from the state its command produced`);
    return key;
  }

  /**
   * Runs the command; gateway caches of changed keys are invalidated as soon as the events are
   * stored, before the read models see them, because a revoked key must stop working even if the
   * projection fails. The topic consumer repeats both, so a failure here heals.
   */
  private async run(appId: string, command: AppCommand, actor: Actor, requestId: string, now: Date): Promise<AppState> {
    const metadata: CommandMetadata = { appId, actor, correlationId: requestId, now };
    const result = await this.deps.runner.run({
      decider: appDecider,
      streamId: appStreamId(appId),
      command,
      metadata,
      onAppended: (events) =>
        this.deps.invalidator
          .invalidateTwice(keyHashesOf(events))
          .catch((error: unknown) => this.deps.logger.error({ err: error }, 'api key cache invalidation failed; the consumer will retry')),
    });
    return result.state;
  }
}
