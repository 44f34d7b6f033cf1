import { ApiError } from '@chat/contracts';
import type { ErrorCode } from '@chat/contracts';
import { specFor } from '@chat/eventsourcing/testing';
import { describe, it } from 'vitest';
import { appDecider } from '../apps/app.js';
import type { AppEvent } from '../apps/appState.js';
import { MAX_WEBHOOKS_PER_APP } from './webhooks.js';
import type { WebhookConfig } from './webhooks.js';

const spec = specFor(appDecider);
const refusedWith = (code: ErrorCode) => (error: unknown) => error instanceof ApiError && error.code === code;

const appCreated: AppEvent = { type: 'AppCreated', data: { appId: 'a1', name: 'Demo', region: 'us', createdAt: 100 } };
const keyCreated = (n: number): AppEvent => ({
  type: 'ApiKeyCreated',
  data: { keyId: `k${n}`, keyHash: `h${n}`, maskedKey: `m${n}`, name: `key ${n}`, scope: 'fullAccess', createdBy: 'app_system', createdAt: 100 },
});
const config: WebhookConfig = { name: 'Hook', url: 'https://example.com/h', useBasicAuth: false, enabled: true, retryOnFailure: true };
const webhookCreated = (id: string): AppEvent => ({
  type: 'WebhookCreated',
  data: { ...config, appId: 'a1', webhookId: id, sealedSecret: 'sealed', at: 200 },
});

describe('app decider: deletion', () => {
  it('revokes every live key of the app at once', () => {
    spec
      .given([appCreated, keyCreated(1), keyCreated(2), { type: 'ApiKeyDeleted', data: { keyId: 'k2', keyHash: 'h2', deletedAt: 150 } }])
      .when({ type: 'DeleteApp', now: 300 })
      .then([{ type: 'AppDeleted', data: { appId: 'a1', keyHashes: ['h1'], deletedAt: 300 } }]);
  });

  it('refuses everything on a deleted app, and its id is never reused', () => {
    const deleted: AppEvent[] = [appCreated, { type: 'AppDeleted', data: { appId: 'a1', keyHashes: [], deletedAt: 300 } }];
    spec.given(deleted).when({ type: 'DeleteApp', now: 400 }).thenThrows(refusedWith('ERR_APP_NOT_FOUND'));
    spec.given(deleted).when({ type: 'ResetSettings', now: 400 }).thenThrows(refusedWith('ERR_APP_NOT_FOUND'));
    spec
      .given(deleted)
      .when({ type: 'CreateApp', appId: 'a1', name: 'Again', region: 'us', keys: [], now: 400 })
      .thenThrows(refusedWith('ERR_CONCURRENT_MODIFICATION'));
  });
});

describe('app decider: settings and collaborators', () => {
  it('records only the settings that change', () => {
    const set: AppEvent = { type: 'AppSettingsSet', data: { appId: 'a1', settings: [{ key: 'webhooks.enabled', value: false }], setAt: 200 } };
    spec
      .given([appCreated])
      .when({ type: 'SetSettings', settings: [{ key: 'webhooks.enabled', value: false }], now: 200 })
      .then([set]);
    spec.given([appCreated, set]).when({ type: 'SetSettings', settings: [{ key: 'webhooks.enabled', value: false }], now: 300 }).thenNothingHappens();
    spec.given([appCreated]).when({ type: 'ResetSettings', now: 300 }).thenNothingHappens();
    spec.given([appCreated, set]).when({ type: 'ResetSettings', now: 300 }).then([{ type: 'AppSettingsReset', data: { appId: 'a1', resetAt: 300 } }]);
  });

  it('adds collaborators with the stronger role and removes only those present', () => {
    spec
      .given([appCreated])
      .when({ type: 'ChangeCollaborators', admins: ['a@x.io'], moderators: ['a@x.io', 'm@x.io'], remove: ['nobody@x.io'], now: 200 })
      .then([
        {
          type: 'CollaboratorsChanged',
          data: { appId: 'a1', added: [{ email: 'a@x.io', role: 'admin' }, { email: 'm@x.io', role: 'moderator' }], removed: [], changedAt: 200 },
        },
      ]);
  });
});

describe('app decider: webhooks', () => {
  it('creates a webhook once per id, up to the limit', () => {
    spec
      .given([appCreated])
      .when({ type: 'CreateWebhook', webhookId: 'w1', config, sealedSecret: 'sealed', now: 200 })
      .then([webhookCreated('w1')]);
    spec
      .given([appCreated, webhookCreated('w1')])
      .when({ type: 'CreateWebhook', webhookId: 'w1', config, sealedSecret: 'sealed', now: 200 })
      .thenThrows(refusedWith('ERR_WEBHOOK_ALREADY_EXISTS'));
    const full = [appCreated, ...Array.from({ length: MAX_WEBHOOKS_PER_APP }, (_, i) => webhookCreated(`w${i}`))];
    spec
      .given(full)
      .when({ type: 'CreateWebhook', webhookId: 'one-more', config, sealedSecret: 'sealed', now: 200 })
      .thenThrows(refusedWith('ERR_WEBHOOKS_LIMIT_EXCEEDED'));
  });

  it('needs both halves of Basic Auth', () => {
    spec
      .given([appCreated])
      .when({ type: 'CreateWebhook', webhookId: 'w1', config: { ...config, useBasicAuth: true, username: 'u' }, sealedSecret: 's', now: 200 })
      .thenThrows(refusedWith('ERR_BAD_REQUEST'));
  });

  it('adds known triggers once, refuses unknown ones, removes what is there', () => {
    const given = [appCreated, webhookCreated('w1')];
    spec
      .given(given)
      .when({ type: 'AddWebhookTriggers', webhookId: 'w1', triggers: ['message_sent', 'message_sent'], now: 300 })
      .then([{ type: 'WebhookTriggersAdded', data: { appId: 'a1', webhookId: 'w1', triggers: ['message_sent'], changed: ['message_sent'], at: 300 } }]);
    spec.given(given).when({ type: 'AddWebhookTriggers', webhookId: 'w1', triggers: ['message_sung'], now: 300 }).thenThrows(refusedWith('ERR_TRIGGER_NOT_FOUND'));
    spec.given(given).when({ type: 'RemoveWebhookTriggers', webhookId: 'w1', triggers: ['message_sent'], now: 300 }).thenNothingHappens();
    spec.given([appCreated]).when({ type: 'DeleteWebhook', webhookId: 'w1', now: 300 }).thenThrows(refusedWith('ERR_WEBHOOK_NOT_FOUND'));
  });

  it('a receiver’s 410 disables a webhook once', () => {
    const disabled: AppEvent = { type: 'WebhookUpdated', data: { ...config, appId: 'a1', webhookId: 'w1', enabled: false, reason: 'gone', at: 300 } };
    spec.given([appCreated, webhookCreated('w1')]).when({ type: 'UpdateWebhook', webhookId: 'w1', changes: { enabled: false }, reason: 'gone', now: 300 }).then([disabled]);
    spec
      .given([appCreated, webhookCreated('w1'), disabled])
      .when({ type: 'UpdateWebhook', webhookId: 'w1', changes: { enabled: false }, reason: 'gone', now: 400 })
      .thenNothingHappens();
  });
});
