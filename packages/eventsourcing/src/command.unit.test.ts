import { describe, expect, it } from 'vitest';
import { commandMetadata } from './command.js';

describe('commandMetadata', () => {
  const actor = { appId: 'app1', keyId: 'k1', scope: 'fullAccess' as const, uid: 'alice' };
  const now = new Date(0);

  it('names the actor app, the request as correlation and no cause for a request', () => {
    expect(commandMetadata({ actor, requestId: 'r1' }, now)).toEqual({ appId: 'app1', actor, correlationId: 'r1', causationId: null, now });
  });

  it('names the event a reaction is caused by', () => {
    expect(commandMetadata({ actor, requestId: 'r1', causationId: 'e9' }, now).causationId).toBe('e9');
  });
});
