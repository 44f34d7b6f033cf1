import { ApiError } from '@chat/contracts';
import type { CollaboratorRole } from '@chat/contracts';
import type { Decider } from '@chat/eventsourcing';
import { decideWebhook } from '../webhooks/webhookDecisions.js';
import { decideApiKey } from './apiKeys.js';
import type { AppCommand } from './appCommands.js';
import { evolve } from './appEvolution.js';
import { requireApp } from './appState.js';
import type { ActiveApp, AppEvent, AppState } from './appState.js';

function decide(command: AppCommand, state: AppState): AppEvent[] {
  switch (command.type) {
    case 'CreateApp': {
      // Ids are 64 random bits; a clash is a retryable accident, not a client mistake.
      if (state.status !== 'absent') throw new ApiError('ERR_CONCURRENT_MODIFICATION', 'App id collision; retry the request.');
      return [
        {
          type: 'AppCreated',
          data: { appId: command.appId, name: command.name, region: command.region, createdAt: command.now },
        },
        ...(command.tenant
          ? [{ type: 'TenantCreated', data: { ...command.tenant, appId: command.appId, createdAt: command.now } } satisfies AppEvent]
          : []),
        ...command.keys.map((key): AppEvent => ({ type: 'ApiKeyCreated', data: { ...key, createdAt: command.now } })),
      ];
    }
    case 'CreateApiKey':
    case 'UpdateApiKey':
    case 'DeleteApiKey':
      return decideApiKey(command, requireApp(state));
    case 'DeleteApp': {
      const app = requireApp(state);
      const keyHashes = Object.values(app.keys).map((key) => key.keyHash);
      return [{ type: 'AppDeleted', data: { appId: app.appId, keyHashes, deletedAt: command.now } }];
    }
    case 'RequestUsage': {
      const app = requireApp(state);
      return [
        {
          type: 'AppUsageRequested',
          data: { appId: app.appId, usePreviousBillingCycle: command.usePreviousBillingCycle, requestedAt: command.now },
        },
      ];
    }
    case 'ChangeCollaborators':
      return decideCollaborators(requireApp(state), command);
    case 'SetSettings': {
      const app = requireApp(state);
      const changed = command.settings.filter(({ key, value }) => app.settings.find((own) => own.key === key)?.value !== value);
      if (changed.length === 0) return [];
      return [{ type: 'AppSettingsSet', data: { appId: app.appId, settings: changed, setAt: command.now } }];
    }
    case 'ResetSettings': {
      const app = requireApp(state);
      if (app.settings.length === 0) return [];
      return [{ type: 'AppSettingsReset', data: { appId: app.appId, resetAt: command.now } }];
    }
    case 'CreateWebhook':
    case 'UpdateWebhook':
    case 'RotateWebhookSecret':
    case 'DeleteWebhook':
    case 'AddWebhookTriggers':
    case 'RemoveWebhookTriggers':
      return decideWebhook(command, requireApp(state));
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${JSON.stringify(unknown)}`);
    }
  }
}

type CollaboratorCommand = Extract<AppCommand, { type: 'ChangeCollaborators' }>;

/** Adding someone already there with the same role, or removing someone absent, changes nothing. */
function decideCollaborators(app: ActiveApp, command: CollaboratorCommand): AppEvent[] {
  const wanted = new Map<string, CollaboratorRole>();
  for (const email of command.moderators) wanted.set(email, 'moderator');
  // Named as both: the stronger role wins.
  for (const email of command.admins) wanted.set(email, 'admin');
  const added = [...wanted].filter(([email, role]) => app.collaborators[email]?.role !== role).map(([email, role]) => ({ email, role }));
  const removed = [...new Set(command.remove)].filter((email) => !wanted.has(email) && Object.hasOwn(app.collaborators, email));
  if (added.length === 0 && removed.length === 0) return [];
  return [{ type: 'CollaboratorsChanged', data: { appId: app.appId, added, removed, changedAt: command.now } }];
}

export const appDecider: Decider<AppState, AppCommand, AppEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve,
  decide,
  // 2: deleted apps, settings, collaborators and webhooks joined the state.
  snapshotVersion: 2,
};
