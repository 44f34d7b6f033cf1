import { ApiError } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { groupDecider } from './group.js';
import type { GroupEvent } from './groupState.js';
import { effectivePermissions, listScopePermissions, parseScopePermissions } from './scopePermissions.js';

const badRequestNaming = (field: string) => (error: unknown) =>
  error instanceof ApiError && error.code === 'ERR_BAD_REQUEST' && error.message.startsWith(field);

describe('scope permissions', () => {
  it('accepts catalogue values, lists as arrays or comma-separated strings, de-duplicated', () => {
    expect(parseScopePermissions({ sendMessage: 'deny', 'initiateCall.allowedType': 'audio, video,audio', 'listMembers.allowedScopes': ['admin'] })).toEqual({
      sendMessage: 'deny',
      'initiateCall.allowedType': ['audio', 'video'],
      'listMembers.allowedScopes': ['admin'],
    });
  });

  it('refuses unknown ids, values outside the catalogue, wrong types and an empty request', () => {
    for (const [raw, field] of [
      [{ teleport: 'allow' }, 'permissions.teleport'],
      [{ sendMessage: 'sometimes' }, 'permissions.sendMessage'],
      [{ sendMessage: ['allow'] }, 'permissions.sendMessage'],
      [{ 'initiateCall.allowedType': ['fax'] }, 'permissions.initiateCall.allowedType'],
      [{ 'initiateCall.allowedType': 3 }, 'permissions.initiateCall.allowedType'],
      [{}, 'permissions'],
    ] as const) {
      let caught: unknown;
      try {
        parseScopePermissions(raw);
      } catch (error) {
        caught = error;
      }
      expect(badRequestNaming(field)(caught), `${JSON.stringify(raw)} → ${String(caught)}`).toBe(true);
    }
  });

  it('shows defaults until a value is set, per scope, and when each value was set', () => {
    const decider = groupDecider('g');
    const events: GroupEvent[] = [
      { type: 'GroupCreated', data: { guid: 'g', name: 'G', type: 'public', owner: '', tags: [], createdAt: 5 } },
      { type: 'GroupScopePermissionsChanged', data: { guid: 'g', scope: 'moderator', permissions: { sendMessage: 'deny', 'initiateCall.allowedType': ['audio', 'video'] }, removed: [], changedAt: 9 } },
    ];
    const state = events.reduce(decider.evolve, decider.initialState());
    expect(effectivePermissions(state, 'moderator')).toMatchObject({ sendMessage: 'deny', 'initiateCall.allowedType': 'audio,video', editMessage: 'allow', 'listMembers.allowedScopes': '' });
    expect(effectivePermissions(state, 'admin')['sendMessage']).toBe('allow');
    const listed = listScopePermissions(state, 'moderator');
    expect(listed).toHaveLength(11);
    expect(listed.find((p) => p.id === 'sendMessage')).toMatchObject({ value: 'deny', defaultValue: 'allow', createdAt: 5, updatedAt: 9 });
    expect(listed.find((p) => p.id === 'editMessage')).toMatchObject({ value: 'allow', updatedAt: 5 });
  });
});
