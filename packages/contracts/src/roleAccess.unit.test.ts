import { describe, expect, it } from 'vitest';
import { routeCatalog } from './routes.js';
import { bodyGates, limitDenial, operationGates, operationsGatedBy, roleDenial, roleLimits } from './roleAccess.js';
import type { RoleAccess } from './roleAccess.js';

const access = (permissions: RoleAccess['permissions'], restrictedFeatures: string[] = []): RoleAccess => ({ role: 'r', permissions, restrictedFeatures });

describe('role access', () => {
  it('denies gated operations by toggle or restricted feature', () => {
    expect(roleDenial('send-message', access({ sendMessage: 'deny' }))).toContain('sendMessage');
    expect(roleDenial('list-groups', access({}, ['u.listGroups']))).toContain('u.listGroups');
    expect(roleDenial('send-message', access({ sendMessage: 'allow' }))).toBeNull();
  });

  it('refuses each operation a restricted feature gates, and only for that feature', () => {
    expect(roleDenial('list-users', access({}, ['u.listUsers']))).toBe('The feature u.listUsers is restricted for the role r.');
    expect(roleDenial('list-users', access({}, ['u.getUser']))).toBeNull();
    expect(roleDenial('list-users', access({ listUsers: 'deny' }))).toContain('listUsers');
    expect(roleDenial('list-group-members', access({}, ['u.listGroupMembers']))).toContain('u.listGroupMembers');
    expect(roleDenial('create-user', access({}, ['u.listUsers', 'u.createGroup']))).toBeNull();
    expect(operationsGatedBy('u.listMessages').sort()).toEqual(['list-all-messages', 'list-all-thread-messages', 'user-list-group-messages', 'user-list-user-messages']);
    expect(operationsGatedBy('u.initiateCall').sort()).toEqual(['send-message', 'send-thread-message']);
    expect(operationsGatedBy('u.noSuchFeature')).toEqual([]);
  });

  it('names only operations of the route catalogue', () => {
    const operations = new Set(routeCatalog.map((route) => route.operationId));
    for (const operationId of [...Object.keys(operationGates), ...Object.keys(bodyGates)]) expect(operations).toContain(operationId);
  });

  it('refuses starting a call, not other sends, when u.initiateCall or initiateCall is closed', () => {
    const restricted = roleLimits('send-message', access({}, ['u.initiateCall']));
    expect(restricted).toEqual({ role: 'r', allowed: {}, refused: ['u.initiateCall'] });
    expect(limitDenial('send-message', restricted!, { category: 'call', initiatesCall: true })).toBe('The feature u.initiateCall is restricted for the role r.');
    expect(limitDenial('send-message', restricted!, { category: 'call', initiatesCall: false })).toBeNull();
    expect(limitDenial('send-message', restricted!, { category: 'message', messageType: 'text' })).toBeNull();
    const denied = roleLimits('send-thread-message', access({ initiateCall: 'deny' }));
    expect(limitDenial('send-thread-message', denied!, { initiatesCall: true })).toContain('initiateCall permission');
    // A send is not refused whole: the gateway lets it through to the service that reads the body.
    expect(roleDenial('send-message', access({ initiateCall: 'deny' }, ['u.initiateCall']))).toBeNull();
    expect(roleLimits('list-users', access({ initiateCall: 'deny' }, ['u.initiateCall']))).toBeNull();
  });

  it('hands on only the non-empty value lists of the operation', () => {
    const rules = access({ 'sendMessage.allowedMessageTypes': ['text'], 'sendMessage.allowedMimeTypes': [], 'createGroup.allowedGroupTypes': ['private'], sendMessage: 'allow' });
    expect(roleLimits('send-message', rules)).toEqual({ role: 'r', allowed: { 'sendMessage.allowedMessageTypes': ['text'] } });
    expect(roleLimits('create-group', rules)).toEqual({ role: 'r', allowed: { 'createGroup.allowedGroupTypes': ['private'] } });
    expect(roleLimits('list-groups', rules)).toBeNull();
    expect(roleLimits('send-message', access({}))).toBeNull();
  });

  it('refuses a value outside a list, naming the permission; absent facts pass', () => {
    const limits = {
      role: 'r',
      allowed: { 'sendMessage.allowedMessageCategories': ['message'], 'sendMessage.allowedMimeTypes': ['image/png'], 'sendMessage.allowedMessageTypes': ['text', 'image'] },
    };
    expect(limitDenial('send-message', limits, { category: 'message', messageType: 'image', mimeTypes: ['image/png'] })).toBeNull();
    expect(limitDenial('send-message', limits, { category: 'custom', customType: 'poll' })).toContain('sendMessage.allowedMessageCategories');
    expect(limitDenial('send-message', limits, { category: 'message', messageType: 'file', mimeTypes: [] })).toContain('not file');
    expect(limitDenial('send-thread-message', limits, { messageType: 'image', mimeTypes: ['image/png', 'image/gif'] })).toContain('not image/gif');
    expect(limitDenial('create-group', limits, { groupType: 'public' })).toBeNull();
  });
});
