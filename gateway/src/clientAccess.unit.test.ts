import { routeCatalog } from '@chat/contracts';
import type { AuthTokenOwner, RouteSpec } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { decideClientAccess, ownPathUid } from './clientAccess.js';
import { RouteTable } from './routes.js';

const route = (operationId: string): RouteSpec => {
  const found = routeCatalog.find((r) => r.operationId === operationId);
  if (!found) throw new Error(`no route ${operationId}`);
  return found;
};
const alice: AuthTokenOwner = { uid: 'alice', tokenId: 'f'.repeat(64) };
const table = new RouteTable(routeCatalog);
/** The decision for a request as the gateway sees it: the route the path matches, and that path. */
const decide = (method: string, path: string, owner: AuthTokenOwner | null, onBehalfOf?: string) => {
  const matched = table.match(method, path);
  if (!matched) throw new Error(`no route for ${method} ${path}`);
  return decideClientAccess(matched, owner, onBehalfOf, ownPathUid(matched, path));
};

describe('decideClientAccess', () => {
  it('refuses an unknown, revoked or foreign token before anything else', () => {
    for (const operationId of ['send-message', 'create-user']) {
      expect(decideClientAccess(route(operationId), null, undefined, undefined)).toMatchObject({
        kind: 'refuse',
        refusal: { code: 'AUTH_ERR_AUTH_TOKEN_NOT_FOUND' },
      });
    }
  });

  it("lets a user's own operations through as the token's user", () => {
    expect(decide('POST', '/v3/messages', alice)).toEqual({ kind: 'allow', owner: alice });
    expect(decide('GET', '/v3/conversations', alice)).toEqual({ kind: 'allow', owner: alice });
    expect(decide('GET', '/v3/users/bob/messages', alice)).toEqual({ kind: 'allow', owner: alice });
    expect(decide('POST', '/v3/users/bob/conversation/read', alice)).toEqual({ kind: 'allow', owner: alice });
    expect(decide('DELETE', '/v3/groups/g1/members/alice', alice)).toEqual({ kind: 'allow', owner: alice });
  });

  it("refuses the app's operations with AUTH_ERR_NO_ACCESS", () => {
    for (const [method, path] of [
      ['POST', '/v3/users'],
      ['PUT', '/v3/users/alice'],
      ['GET', '/v3/apikeys'],
      ['POST', '/v3/roles'],
      ['GET', '/v3/users/alice/auth_tokens'],
      ['PATCH', '/v3/notifications/v1/settings'],
      ['GET', '/v3/moderation/rules'],
    ] as const) {
      expect(decide(method, path, alice)).toMatchObject({ kind: 'refuse', refusal: { code: 'AUTH_ERR_NO_ACCESS', message: expect.stringContaining('apikey') } });
    }
  });

  it('accepts onBehalfOf naming the token’s own user (in any case), refuses it naming another', () => {
    expect(decide('POST', '/v3/messages', alice, 'alice').kind).toBe('allow');
    expect(decide('POST', '/v3/messages', alice, 'ALICE').kind).toBe('allow');
    expect(decide('POST', '/v3/messages', alice, 'bob')).toMatchObject({ kind: 'refuse', refusal: { code: 'AUTH_ERR_NO_ACCESS', message: expect.stringContaining('onBehalfOf') } });
  });

  it("allows friends and blocked users on the token's own uid only", () => {
    expect(decide('POST', '/v3/users/alice/friends', alice).kind).toBe('allow');
    expect(decide('GET', '/v3/users/Alice/blockedusers', alice).kind).toBe('allow');
    expect(decide('POST', '/v3/users/%61lice/blockedusers', alice).kind).toBe('allow');
    expect(decide('DELETE', '/v3/users/bob/friends', alice)).toMatchObject({ kind: 'refuse', refusal: { code: 'AUTH_ERR_NO_ACCESS', message: expect.stringContaining("path's uid") } });
    expect(decide('GET', '/v3/users/%E0%A4%A/friends', alice)).toMatchObject({ kind: 'refuse', refusal: { code: 'AUTH_ERR_NO_ACCESS' } });
  });
});

describe('ownPathUid', () => {
  it("reads the segment at the template's :uid, decoded; nothing where the route has no :uid", () => {
    expect(ownPathUid(route('add-friend'), '/v3/users/a%2Db/friends')).toBe('a-b');
    expect(ownPathUid(route('list-all-friends'), '/v3/users/alice/friends/')).toBe('alice');
    expect(ownPathUid(route('send-message'), '/v3/messages')).toBeUndefined();
    expect(ownPathUid(route('add-friend'), '/v3/users/%ZZ/friends')).toBeNull();
  });
});
