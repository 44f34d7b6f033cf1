import { randomBytes, scryptSync } from 'node:crypto';
import { ApiError, epochSeconds } from '@chat/contracts';
import type { Actor, ApiKeyScope } from '@chat/contracts';
import { keyNamedBy } from '../../domain/apps/apiKeys.js';
import type { AppCommand, KeyRef, NewTenant } from '../../domain/apps/appCommands.js';
import type { ApiKeyState, AppState } from '../../domain/apps/appState.js';
import type { SettingEntry } from '../../domain/apps/settings.js';
import { AppStream, managementActor } from '../appStream.js';
import type { AppStreamDeps } from '../appStream.js';
import { keyRefFromParam, mintApiKey, newAppId } from './keys.js';

/** Who creates the keys every new app starts with (CometChat's value). */
export const APP_SYSTEM = 'app_system';

export interface CommandDeps extends AppStreamDeps {
  /** The one region this deployment serves. */
  region: string;
}

/** A tenant's password is kept only as a salted scrypt hash (`scrypt$<salt>$<hash>`, base64). */
function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64')}$${scryptSync(password, salt, 32).toString('base64')}`;
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

export class ManagementCommands {
  private readonly stream: AppStream;
  constructor(private readonly deps: CommandDeps) {
    this.stream = new AppStream(deps);
  }

  async createApp(input: { name: string; region: string; tenant?: Omit<NewTenant, 'tenantId' | 'passwordHash'> & { password: string } }, requestId: string): Promise<CreatedApp> {
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
    const tenant = input.tenant && ((): NewTenant => {
      const { password, ...owner } = input.tenant;
      return { ...owner, tenantId: randomBytes(8).toString('hex'), passwordHash: hashPassword(password) };
    })();
    const command: AppCommand = {
      type: 'CreateApp',
      appId,
      name: input.name,
      region: input.region,
      keys: minted.map((m) => m.record),
      ...(tenant ? { tenant } : {}),
      now: epochSeconds(now),
    };
    const state = await this.stream.run(appId, command, managementActor(appId), requestId, now);
    if (state.status !== 'active') throw new Error('CreateApp left the app absent');
    return { app: state, issuedKeys: minted.map((m) => ({ apiKey: m.apiKey, key: this.keyOf(state, { keyId: m.record.keyId }) })) };
  }

  async createApiKey(actor: Actor, input: { name: string; scope: ApiKeyScope }, requestId: string): Promise<IssuedKey> {
    const minted = mintApiKey(input.name, input.scope, actor.keyId);
    const now = this.deps.clock();
    const state = await this.stream.run(actor.appId, { type: 'CreateApiKey', key: minted.record, now: epochSeconds(now) }, actor, requestId, now);
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
    const state = await this.stream.run(
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
    await this.stream.run(actor.appId, { type: 'DeleteApiKey', key, callerKeyId: actor.keyId, now: epochSeconds(now) }, actor, requestId, now);
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

  /** Revokes every key of the app (gateways forget them within 1 s) and stops its webhooks. */
  async deleteApp(appId: string, requestId: string): Promise<number> {
    const { date, seconds } = this.stream.now();
    await this.stream.run(appId, { type: 'DeleteApp', now: seconds }, managementActor(appId), requestId, date);
    return seconds;
  }

  async requestUsage(appId: string, usePreviousBillingCycle: boolean, requestId: string): Promise<void> {
    const { date, seconds } = this.stream.now();
    await this.stream.run(appId, { type: 'RequestUsage', usePreviousBillingCycle, now: seconds }, managementActor(appId), requestId, date);
  }

  async changeCollaborators(
    appId: string,
    change: { admins: string[]; moderators: string[]; remove: string[] },
    requestId: string,
  ): Promise<void> {
    const { date, seconds } = this.stream.now();
    await this.stream.run(appId, { type: 'ChangeCollaborators', ...change, now: seconds }, managementActor(appId), requestId, date);
  }

  async setSettings(appId: string, settings: SettingEntry[], requestId: string): Promise<void> {
    const { date, seconds } = this.stream.now();
    await this.stream.run(appId, { type: 'SetSettings', settings, now: seconds }, managementActor(appId), requestId, date);
  }

  async resetSettings(appId: string, requestId: string): Promise<void> {
    const { date, seconds } = this.stream.now();
    await this.stream.run(appId, { type: 'ResetSettings', now: seconds }, managementActor(appId), requestId, date);
  }
}
