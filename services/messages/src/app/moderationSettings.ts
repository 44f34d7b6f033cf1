import { epochSeconds } from '@chat/contracts';
import type { CommandRunner } from '@chat/eventsourcing';
import { readWithPatience } from '@chat/mongo';
import type { ModerationReadModels } from '../adapters/moderationReadModels.js';
import type { MessagesReadModels } from '../adapters/readModels.js';
import { findSetting, moderationSettingsDecider, moderationSettingsStream, settingNotFound } from '../domain/moderationSettings.js';
import type { EntityOf, ModerationSettings, SaveSetting, SettingsKind } from '../domain/moderationSettings.js';
import type { RequestContext } from './messages.js';

export interface ModerationSettingsDeps {
  runner: CommandRunner;
  readModels: MessagesReadModels;
  moderation: ModerationReadModels;
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

  private async change(context: RequestContext, build: (at: number) => Promise<Parameters<typeof moderationSettingsDecider.decide>[0]>): Promise<ModerationSettings> {
    const { appId } = context.actor;
    const result = await this.deps.runner.run({
      decider: moderationSettingsDecider,
      streamId: moderationSettingsStream(appId),
      command: () => build(epochSeconds(this.clock())),
      metadata: { appId, actor: context.actor, correlationId: context.requestId, causationId: null, now: this.clock() },
    });
    return result.state;
  }

  /** Creates or updates one setting and answers with it as saved. */
  async save<K extends SettingsKind>(context: RequestContext, kind: K, mode: 'create' | 'update', id: string, fields: SaveSetting<K>['fields']): Promise<EntityOf[K]> {
    const { appId } = context.actor;
    const settings = await this.change(context, async (at) => {
      // An agent answers as the user with its uid: that user must exist (re-read on every attempt).
      const agentUserExists = kind === 'agent' ? await this.userExists(appId, id) : undefined;
      return { type: 'SaveSetting', kind, mode, id, fields, at, appId, ...(agentUserExists !== undefined ? { agentUserExists } : {}) };
    });
    const saved = findSetting(settings, kind, id);
    if (!saved) throw settingNotFound(kind, id);
    return saved;
  }

  async remove(context: RequestContext, kind: SettingsKind, id: string): Promise<void> {
    await this.change(context, (at) => Promise.resolve({ type: 'DeleteSetting', kind, id, at, appId: context.actor.appId }));
  }

  async settings(context: RequestContext): Promise<ModerationSettings> {
    return (await this.deps.moderation.moderationOf(context.actor.appId, context.awaited)).settings;
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
