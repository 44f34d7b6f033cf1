import { describe, expect, it } from 'vitest';
import { clientAccessRules, routeCatalog } from './routes.js';
import type { ClientAccess } from './routes.js';

const clientOf = (operationId: string): ClientAccess | undefined => routeCatalog.find((route) => route.operationId === operationId)?.client;

describe('client access in the route catalogue (ADR 0070)', () => {
  it('classifies every operation', () => {
    const unclassified = routeCatalog.filter((route) => !(clientAccessRules as readonly unknown[]).includes(route.client));
    expect(unclassified.map((route) => route.operationId)).toEqual([]);
  });

  it("keeps the app's credentials and management to the app", () => {
    for (const route of routeCatalog.filter((r) => r.api === 'management' || r.scope === 'authOnly')) {
      expect([route.operationId, route.client]).toEqual([route.operationId, 'app']);
    }
  });

  it("opens to a user every operation that exists only as some user's (onBehalfOf required)", () => {
    for (const route of routeCatalog.filter((r) => r.onBehalfOf === 'required')) {
      expect([route.operationId, route.client]).toEqual([route.operationId, 'user']);
    }
  });

  it("limits `self` to routes whose path's uid names the acting user", () => {
    const own = routeCatalog.filter((route) => route.client === 'self');
    expect(own.length).toBeGreaterThan(0);
    for (const route of own) {
      expect(route.path).toMatch(/\/:uid(\/|$)/);
      expect(route.onBehalfOf).toBe('ignored');
    }
  });

  it('lets a user do for itself what issue 24 lists, and nothing of the app', () => {
    const mine = [
      'send-message', 'update-message', 'delete-message', 'get-message-details', 'list-all-conversations', 'get-user-conversations',
      'user-list-user-messages', 'user-list-group-messages', 'mark-conversation-as-read', 'mark-conversation-as-delivered',
      'mark-group-conversation-as-unread', 'add-message-reactions', 'remove-message-reactions', 'add-group-members', 'kick-group-member',
      'get-user', 'list-users',
    ];
    for (const operationId of mine) expect([operationId, clientOf(operationId)]).toEqual([operationId, 'user']);
    for (const operationId of ['list-all-friends', 'add-friend', 'remove-friend', 'block-users', 'unblock-users', 'list-blocked-users']) {
      expect([operationId, clientOf(operationId)]).toEqual([operationId, 'self']);
    }
    const apps = [
      'create-user', 'update-user', 'delete-user', 'deactivate-users', 'create-authtoken', 'list-authtokens', 'list-roles', 'create-role',
      'list-apikeys', 'create-apikey', 'notifications-push-update-settings', 'create-rule', 'import-messages', 'usage-metrics',
      'send-bot-message', 'list-webhooks', 'replace-global-pinned-conversations',
    ];
    for (const operationId of apps) expect([operationId, clientOf(operationId)]).toEqual([operationId, 'app']);
  });
});
