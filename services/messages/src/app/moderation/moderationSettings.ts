import { epochSeconds } from '@chat/contracts';
import type { Agent, RequestContext } from '@chat/contracts';
import { commandMetadata } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import { readWithPatience } from '@chat/mongo';
import type { ModerationReadModels } from '../../adapters/moderation/moderationReadModels.js';
import type { MessagesReadModels } from '../../adapters/readModels.js';
import type { AgentCredentials } from '../agents/agentCredentials.js';
import { findSetting, moderationSettingsDecider, moderationSettingsStream, settingNotFound } from '../../domain/moderation/moderationSettings.js';
import type { EntityOf, ModerationSettings, SaveSetting, SettingsKind } from '../../domain/moderation/moderationSettings.js';

export interface ModerationSettingsDeps {
  runner: CommandRunner;
  readModels: MessagesReadModels;
  moderation: ModerationReadModels;
  /** Seals agents' header values before they are stored. */
  credentials: AgentCredentials;
  clock?: () => Date;
}

/**
 * Commands and queries on an app's moderation settings and agents (one stream per app). A command
 * answers from the stream's state after it; a query reads the read model, which the runner has
 * brought up to date before a command of this process answers.
 */
export class ModerationSettingsApp {
  private readonly clock: () => Date;

  constructor(private readonly deps: ModerationSettingsDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  private async change(
    context: RequestContext,
    build: (at: number, state: ModerationSettings) => Promise<Parameters<typeof moderationSettingsDecider.decide>[0]>,
  ): Promise<ModerationSettings> {
    const { appId } = context.actor;
    const result = await this.deps.runner.run({
      decider: moderationSettingsDecider,
      streamId: moderationSettingsStream(appId),
      command: (state) => build(epochSeconds(this.clock()), state),
      metadata: commandMetadata({ actor: context.actor, requestId: context.requestId }, this.clock()),
    });
    return result.state;
  }

  /** Creates or updates one setting and answers with it as saved. */
  async save<K extends SettingsKind>(context: RequestContext, kind: K, mode: 'create' | 'update', id: string, fields: SaveSetting<K>['fields']): Promise<EntityOf[K]> {
    const { appId } = context.actor;
    const given = kind === 'agent' ? this.sealedAgentFields(fields) : fields;
    const settings = await this.change(context, async (at, state) => {
      // An agent answers as the user with its uid: that user must exist (re-read on every attempt).
      const agentUserExists = kind === 'agent' ? await this.userExists(appId, id) : undefined;
      const toSave = kind === 'agent' && mode === 'update' ? this.withResealedHeaders(given, findSetting(state, 'agent', id)) : given;
      return { type: 'SaveSetting', kind, mode, id, fields: toSave as typeof fields, at, appId, ...(agentUserExists !== undefined ? { agentUserExists } : {}) };
    });
    const saved = findSetting(settings, kind, id);
    if (!saved) throw settingNotFound(kind, id);
    return saved;
  }

  /** New header values are sealed before the command sees them (ADR 0039). */
  private sealedAgentFields(fields: Partial<Agent>): Partial<Agent> {
    const meta = fields.integrationMeta;
    return meta ? { ...fields, integrationMeta: { ...meta, headers: this.deps.credentials.seal(meta.headers) } } : fields;
  }

  /** An update that keeps the stored headers reseals them when they are plaintext or sealed with an older key. */
  private withResealedHeaders(fields: Partial<Agent>, stored: Agent | undefined): Partial<Agent> {
    if (fields.integrationMeta || !stored) return fields;
    const headers = this.deps.credentials.resealed(stored.integrationMeta.headers);
    return headers ? { ...fields, integrationMeta: { ...stored.integrationMeta, headers } } : fields;
  }

  async remove(context: RequestContext, kind: SettingsKind, id: string): Promise<void> {
    await this.change(context, (at) => Promise.resolve({ type: 'DeleteSetting', kind, id, at, appId: context.actor.appId }));
  }

  /** The settings as stored: a client reads its own change on any replica (`storedSettingsOf`). */
  async settings(context: RequestContext): Promise<ModerationSettings> {
    return this.deps.moderation.storedSettingsOf(context.actor.appId, context.awaited);
  }

  async one<K extends SettingsKind>(context: RequestContext, kind: K, id: string): Promise<EntityOf[K]> {
    const found = findSetting(await this.settings(context), kind, id);
    if (!found) throw settingNotFound(kind, id);
    return found;
  }

  /** Waits briefly for a user created a moment ago through the users service (it reaches us through Kafka). */
  private async userExists(appId: string, uid: string): Promise<boolean> {
    const facts = await readWithPatience(() => this.deps.readModels.findFacts(appId, { users: [uid] }), { until: (f) => f.users.has(uid) });
    const user = facts.users.get(uid);
    return user !== undefined && !user.deleted && !user.deactivated;
  }
}
