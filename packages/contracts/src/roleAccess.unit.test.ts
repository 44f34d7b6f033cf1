import { describe, expect, it } from 'vitest';
import { limitDenial, roleDenial, roleLimits } from './roleAccess.js';
import type { RoleAccess } from './roleAccess.js';

const access = (permissions: RoleAccess['permissions'], restrictedFeatures: string[] = []): RoleAccess => ({ role: 'r', permissions, restrictedFeatures });

describe('role access', () => {
  it('denies gated operations by toggle or restricted feature', () => {
    expect(roleDenial('send-message', access({ sendMessage: 'deny' }))).toContain('sendMessage');
    expect(roleDenial('list-groups', access({}, ['u.listGroups']))).toContain('u.listGroups');
    expect(roleDenial('send-message', access({ sendMessage: 'allow' }))).toBeNull();
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
