import { ApiError } from '@chat/contracts';
import type { PushTokenRegistered } from '@chat/contracts';
import { specFor } from '@chat/eventsourcing/testing';
import { describe, expect, it } from 'vitest';
import { appConfigDecider } from './appConfig.js';
import type { AppConfigEvent, ProviderChange } from './appConfig.js';
import { recipientDecider, tokenKey } from './recipient.js';
import type { RecipientEvent } from './recipient.js';
import { defaultSettings } from './settings.js';

const app = specFor(appConfigDecider);
const recipient = specFor(recipientDecider);
const fcm = (providerId: string, extra: Partial<ProviderChange> = {}): ProviderChange => ({
  channel: 'push',
  provider: 'fcm',
  providerId,
  settings: { serviceAccountFilename: 'a.json' },
  secrets: { serviceAccountCreds: 'sealed-1' },
  hints: { serviceAccountCreds: '' },
  ...extra,
});
const saved = (change: ProviderChange, at = 1): AppConfigEvent => ({ type: 'NotificationProviderSaved', data: { ...change, savedAt: at } });

describe('the app configuration decider', () => {
  it('merges a settings patch into the whole settings document', () => {
    const [event] = appConfigDecider.decide({ type: 'PatchSettings', patch: { sound: { chat: 'ding' } }, at: 5 }, appConfigDecider.initialState());
    expect(event?.type).toBe('NotificationSettingsChanged');
    const settings = (event?.data as unknown as { settings: typeof defaultSettings }).settings;
    expect(settings.sound).toEqual({ chat: 'ding', call: 'default' });
    expect(settings.preferences).toEqual(defaultSettings.preferences);
  });

  it('resets only what was changed', () => {
    app.given([]).when({ type: 'ResetSettings', at: 2 }).thenNothingHappens();
  });

  it('updates keep the secrets the request left out; updating or removing a missing provider is refused', () => {
    app
      .given([saved(fcm('p1'))])
      .when({ type: 'SaveProvider', mode: 'update', change: fcm('p1', { settings: { serviceAccountFilename: 'b.json' }, secrets: {}, hints: {} }), at: 3 })
      .then([saved(fcm('p1', { settings: { serviceAccountFilename: 'b.json' } }), 3)]);
    app
      .given([])
      .when({ type: 'SaveProvider', mode: 'update', change: fcm('p1'), at: 3 })
      .thenThrows((e) => e instanceof ApiError && e.code === 'ERR_PUSH_PROVIDER_NOT_FOUND');
    app
      .given([])
      .when({ type: 'RemoveProvider', channel: 'sms', provider: 'twilio', providerId: 'default', at: 3 })
      .thenThrows((e) => e instanceof ApiError && e.code === 'ERR_PROVIDER_NOT_CONFIGURED');
  });

  it('the first FCM provider is the default until another is chosen or it is removed', () => {
    const history = [saved(fcm('p1')), saved(fcm('p2'))];
    const state = history.reduce(appConfigDecider.evolve, appConfigDecider.initialState());
    expect(state.defaults.fcm).toBe('p1');
    app.given(history).when({ type: 'SetDefaultProvider', provider: 'fcm', providerId: 'p1', at: 4 }).thenNothingHappens();
    const removed = appConfigDecider.evolve(state, { type: 'NotificationProviderRemoved', data: { channel: 'push', provider: 'fcm', providerId: 'p1', removedAt: 5 } });
    expect(removed.defaults.fcm).toBe('p2');
  });
});

describe('the recipient decider', () => {
  const registration = (token: string, sessionId = 's1'): PushTokenRegistered => ({
    uid: 'bob',
    token,
    tokenType: 'fcm',
    platform: 'fcm_android',
    providerId: 'p1',
    sessionId,
    registeredAt: 1,
  });
  const registered = (token: string, sessionId = 's1'): RecipientEvent => ({ type: 'PushTokenRegistered', data: registration(token, sessionId) });

  it('registers a token once; the same token from another session moves to it', () => {
    recipient.given([registered('a.b$c')]).when({ type: 'RegisterToken', registration: registration('a.b$c') }).thenNothingHappens();
    recipient.given([registered('a.b$c')]).when({ type: 'RegisterToken', registration: registration('a.b$c', 's2') }).then([registered('a.b$c', 's2')]);
  });

  it('removes only tokens the user has, and keys them safely for storage', () => {
    recipient
      .given([registered('t1')])
      .when({ type: 'RemoveTokens', uid: 'bob', tokens: ['t1', 'other'], reason: 'invalid', at: 2 })
      .then([{ type: 'PushTokensRemoved', data: { uid: 'bob', tokens: ['t1'], reason: 'invalid', removedAt: 2 } }]);
    recipient.given([]).when({ type: 'RemoveTokens', uid: 'bob', tokens: ['t1'], reason: 'unregistered', at: 2 }).thenNothingHappens();
    expect(tokenKey('a.b$c%d')).not.toMatch(/[.$]/);
    expect(tokenKey('a.b')).not.toBe(tokenKey('a%2eb'));
  });

  it('an ended session takes its own tokens and no other session’s; ending it again changes nothing', () => {
    recipient
      .given([registered('t1', 's1'), registered('t2', 's2'), registered('t3', 's1')])
      .when({ type: 'EndSessions', uid: 'bob', sessionIds: ['s1', 'gone'], at: 5 })
      .then([{ type: 'PushTokensRemoved', data: { uid: 'bob', tokens: ['t1', 't3'], reason: 'unregistered', removedAt: 5 } }]);
    recipient.given([registered('t2', 's2')]).when({ type: 'EndSessions', uid: 'bob', sessionIds: ['s1'], at: 5 }).thenNothingHappens();
  });

  it('unmutes only what is muted', () => {
    const muted: RecipientEvent = { type: 'ConversationsMuted', data: { uid: 'bob', conversations: [{ id: 'alice', type: 'oneOnOne' }], mutedAt: 1 } };
    recipient.given([muted]).when({ type: 'Unmute', uid: 'bob', conversations: [{ id: 'team', type: 'group' }], at: 2 }).thenNothingHappens();
    recipient
      .given([muted])
      .when({ type: 'Unmute', uid: 'bob', conversations: [{ id: 'alice', type: 'oneOnOne' }], at: 2 })
      .then([{ type: 'ConversationsUnmuted', data: { uid: 'bob', conversations: [{ id: 'alice', type: 'oneOnOne' }], unmutedAt: 2 } }]);
  });
});
