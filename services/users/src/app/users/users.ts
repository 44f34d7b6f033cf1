import { createHash, randomBytes } from 'node:crypto';
import { ApiError, epochSeconds } from '@chat/contracts';
import { tokenKey } from '../../adapters/readModels.js';
import type { UserReadModels } from '../../adapters/readModels.js';
import { DEFAULT_ROLE } from '../../domain/roles/roles.js';
import type { NewAuthToken, ProfileChanges, RemovableProfileField, TokenDetails, UserProfile } from '../../domain/users/user.js';
import type { UserDoc } from '../../projections/users/users.js';
import type { AuthTokenDoc } from '../../projections/users/authTokens.js';
import { listMeta } from '@chat/http';
import type { ListCursor } from '@chat/http';
import { UserCommands } from '../context.js';
import type { UsersDeps } from '../context.js';
import { maskedToken, renderToken, renderUser } from '../views.js';
import type { UserResource } from '../views.js';
import type { AuthTokenOwner, RequestContext, RoleAccess, UserExistence } from '@chat/contracts';

export interface IssuedToken {
  token: string;
  spec: NewAuthToken;
}

export function tokenFingerprint(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * CometChat's token shape (`<uid>_<seconds><40 hex>`). Only its SHA-256 is stored and published,
 * so neither a leaked database nor the event stream yields a usable token.
 */
export function issueAuthToken(uid: string, now: Date, device: { platform?: string; deviceId?: string } = {}): IssuedToken {
  const token = `${uid}_${epochSeconds(now)}${randomBytes(20).toString('hex')}`;
  return {
    token,
    spec: {
      tokenId: tokenFingerprint(token),
      tokenHint: token.slice(-4),
      ...(device.platform !== undefined ? { platform: device.platform } : {}),
      ...(device.deviceId !== undefined ? { deviceId: device.deviceId } : {}),
    },
  };
}

const TOKEN_ID_PATTERN = /^[0-9a-f]{64}$/;

/** What lists show in place of a token (`maskedToken`): so "list, then delete what was listed" works. */
const MASKED_TOKEN_PATTERN = /^[a-z0-9_-]{1,100}_[0-9]+\*{36}.{4}$/;

/**
 * A token path segment names a token by the token itself, by the `tokenId` lists show, or by the
 * masked token lists show (which must match exactly one live token of the user).
 */
export type TokenReference =
  | {
      tokenId: string;
      /** The token as the client sent it, echoed back since the client already holds it. */
      token?: string;
    }
  | { masked: string };

export function tokenReference(segment: string): TokenReference {
  if (TOKEN_ID_PATTERN.test(segment)) return { tokenId: segment };
  if (MASKED_TOKEN_PATTERN.test(segment)) return { masked: segment };
  return { tokenId: tokenFingerprint(segment), token: segment };
}

/** Lists cap a user's live tokens far below this; a masked reference is resolved among them. */
const MAX_TOKENS_SCANNED = 1_000;

export interface UserListQuery {
  searchKey?: string;
  searchIn: ('name' | 'uid')[];
  status?: 'available' | 'offline';
  roles?: string[];
  tags?: string[];
  withTags: boolean;
  onlyDeactivated: boolean;
  withDeactivated: boolean;
}

export interface BulkResult {
  uids: string[];
}

function userNotFound(uid: string): ApiError {
  return new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${uid} does not exist.`);
}

export class UsersApp {
  private readonly runner: UserCommands;
  private readonly readModels: UserReadModels;
  private readonly presence: UsersDeps['presence'];

  constructor(deps: UsersDeps) {
    this.runner = new UserCommands(deps);
    this.readModels = deps.readModels;
    this.presence = deps.presence;
  }

  private async requireRole(appId: string, role: string | undefined): Promise<void> {
    if (role === undefined || role === DEFAULT_ROLE) return;
    if (!(await this.readModels.findRole(appId, role))) throw new ApiError('ERR_ROLE_NOT_FOUND', `The role ${role} does not exist.`);
  }

  /** The user as the API may show it: deactivated and deleted users are not found (CometChat). */
  async activeUser(appId: string, uid: string): Promise<UserDoc> {
    const doc = await this.readModels.findUser(appId, uid);
    if (!doc || doc.state !== 'active') throw userNotFound(uid);
    return doc;
  }

  private async readBack(appId: string, uid: string): Promise<UserDoc> {
    const doc = await this.readModels.findUser(appId, uid);
    if (!doc) throw new Error(`user ${uid} missing from the read model right after a command`);
    return doc;
  }

  async createUser(context: RequestContext, profile: UserProfile, withAuthToken: boolean): Promise<UserResource> {
    await this.requireRole(context.actor.appId, profile.role);
    const now = this.runner.now();
    const issued = withAuthToken ? issueAuthToken(profile.uid, now) : undefined;
    await this.runner.creatingUser(context, profile.uid, (seconds) => ({ type: 'CreateUser', profile, ...(issued ? { authToken: issued.spec } : {}), now: seconds }), now);
    const doc = await this.readBack(context.actor.appId, profile.uid);
    return { ...renderUser(doc), ...(issued ? { authToken: issued.token } : {}) };
  }

  async getUser(context: RequestContext, uid: string): Promise<UserResource> {
    const { appId, uid: viewer } = context.actor;
    if (viewer !== undefined && viewer !== uid) await this.activeUser(appId, viewer);
    const [doc, presence] = await Promise.all([this.activeUser(appId, uid), this.presence?.(appId, uid) ?? null]);
    const user = renderUser(doc, { withTags: true, ...(viewer !== undefined ? { viewer } : {}) });
    // CometChat's words for it: `available` while connected to realtime on any replica.
    if (!presence) return user;
    return { ...user, status: presence.status === 'online' ? 'available' : 'offline', ...(presence.lastActiveAt !== undefined ? { lastActiveAt: presence.lastActiveAt } : {}) };
  }

  async listUsers(context: RequestContext, query: UserListQuery, cursor: ListCursor, perPage: number) {
    const states: UserDoc['state'][] = query.onlyDeactivated ? ['deactivated'] : query.withDeactivated ? ['active', 'deactivated'] : ['active'];
    // Presence is not tracked yet: every user is offline, so asking for available users finds none.
    const nobody = query.status === 'available';
    const { total, items, more } = nobody
      ? { total: 0, items: [], more: false }
      : await this.readModels.listUsers(context.actor.appId, {
          states,
          ...(query.searchKey
            ? { search: { key: query.searchKey, inName: query.searchIn.includes('name'), inUid: query.searchIn.includes('uid') } }
            : {}),
          ...(query.roles ? { roles: query.roles } : {}),
          ...(query.tags ? { tags: query.tags } : {}),
          position: cursor.position(perPage),
          perPage,
        });
    const last = items.at(-1);
    return {
      data: items.map((doc) => renderUser(doc, { withTags: query.withTags })),
      meta: listMeta(total, items.length, perPage, cursor, cursor.next(last ? [last.listKey] : undefined, more)),
    };
  }

  async updateUser(
    context: RequestContext,
    uid: string,
    changes: ProfileChanges,
    removed: RemovableProfileField[],
  ): Promise<UserResource> {
    await this.requireRole(context.actor.appId, changes.role);
    await this.runner.onUser(context, uid, (now) => ({ type: 'UpdateUser', uid, changes, removed, now }));
    return renderUser(await this.readBack(context.actor.appId, uid));
  }

  async deleteUser(context: RequestContext, uid: string, permanent: boolean) {
    const { appId } = context.actor;
    const friends = await this.readModels.relationsOf('friends', appId, uid);
    const friendUids = friends.map((edge) => edge.other);
    await this.runner.onUser(context, uid, (now) => ({ type: 'DeleteUser', uid, permanent, friendUids, now }));
    return { success: true, message: `User with uid ${uid} has been deleted successfully.` };
  }

  /** Each uid is its own stream; unknown and deleted uids are left out of the answer. */
  async setActivation(context: RequestContext, uids: string[], activate: boolean): Promise<BulkResult> {
    const done: string[] = [];
    for (const uid of [...new Set(uids)]) {
      try {
        await this.runner.onUser(context, uid, (now) => ({ type: activate ? 'ReactivateUser' : 'DeactivateUser', uid, now }));
        done.push(uid);
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'ERR_UID_NOT_FOUND') throw error;
      }
    }
    return { uids: done };
  }

  async createAuthToken(context: RequestContext, uid: string, device: { platform?: string; deviceId?: string }) {
    const now = this.runner.now();
    const issued = issueAuthToken(uid, now, device);
    await this.runner.onUser(context, uid, (seconds) => ({ type: 'CreateAuthToken', uid, authToken: issued.spec, now: seconds }), now);
    const doc = await this.readModels.findToken(context.actor.appId, issued.spec.tokenId);
    if (!doc) throw new Error('auth token missing from the read model right after its creation');
    return renderToken(doc, issued.token);
  }

  /** The token id a reference names; a masked one is looked up among the user's live tokens. */
  private async tokenIdOf(context: RequestContext, uid: string, reference: TokenReference): Promise<string> {
    if (!('masked' in reference)) return reference.tokenId;
    const { items } = await this.readModels.listTokens(context.actor.appId, uid, { after: undefined, skip: 0 }, MAX_TOKENS_SCANNED);
    const matching = items.filter((doc) => maskedToken(doc) === reference.masked);
    const only = matching.length === 1 ? matching[0] : undefined;
    if (!only) throw new ApiError('ERR_AUTH_TOKEN_NOT_FOUND', `The auth token does not exist for the user with uid ${uid}.`);
    return only.tokenId;
  }

  private echoed(reference: TokenReference): string | undefined {
    return 'token' in reference ? reference.token : undefined;
  }

  private async liveToken(context: RequestContext, uid: string, reference: TokenReference): Promise<AuthTokenDoc> {
    await this.activeUser(context.actor.appId, uid);
    const doc = await this.readModels.findToken(context.actor.appId, await this.tokenIdOf(context, uid, reference));
    if (!doc || doc.revoked || doc.uid !== uid) {
      throw new ApiError('ERR_AUTH_TOKEN_NOT_FOUND', `The auth token does not exist for the user with uid ${uid}.`);
    }
    return doc;
  }

  async listAuthTokens(context: RequestContext, uid: string, cursor: ListCursor, perPage: number) {
    await this.activeUser(context.actor.appId, uid);
    const { total, items, more } = await this.readModels.listTokens(context.actor.appId, uid, cursor.position(perPage), perPage);
    const last = items.at(-1);
    const next = cursor.next(last ? tokenKey(last) : undefined, more);
    return { data: items.map((doc) => renderToken(doc)), meta: listMeta(total, items.length, perPage, cursor, next) };
  }

  async getAuthToken(context: RequestContext, uid: string, reference: TokenReference) {
    return renderToken(await this.liveToken(context, uid, reference), this.echoed(reference));
  }

  async updateAuthToken(context: RequestContext, uid: string, reference: TokenReference, details: TokenDetails) {
    const tokenId = await this.tokenIdOf(context, uid, reference);
    await this.runner.onUser(context, uid, (now) => ({ type: 'UpdateAuthToken', uid, tokenId, details, now }));
    return renderToken(await this.liveToken(context, uid, { tokenId }), this.echoed(reference));
  }

  async deleteAuthToken(context: RequestContext, uid: string, reference: TokenReference) {
    const tokenId = await this.tokenIdOf(context, uid, reference);
    await this.runner.onUser(context, uid, (now) => ({ type: 'DeleteAuthToken', uid, tokenId, now }));
    return { success: true, message: `The auth token of the user with uid ${uid} has been deleted successfully.` };
  }

  async flushAuthTokens(context: RequestContext, uid: string) {
    await this.runner.onUser(context, uid, (now) => ({ type: 'FlushAuthTokens', uid, now }));
    return { success: true, message: `Cleared Auth Tokens successfully for uid ${uid}.` };
  }

  /** The acting user's role rules for the gateway (null: no active user with that uid). */
  async roleAccess(appId: string, uid: string): Promise<RoleAccess | null> {
    const { user, role } = await this.readModels.accessOf(appId, uid);
    if (!user || user.state !== 'active') return null;
    return {
      role: user.role,
      permissions: role && !role.deleted ? (JSON.parse(role.permissions) as RoleAccess['permissions']) : {},
      restrictedFeatures: role && !role.deleted ? role.restricted.map((feature) => feature.key) : [],
    };
  }

  /** `roleAccess` of many users of an app at once, in the asked order: the gateway's batched refresh (ADR 0104). */
  roleAccessOf(appId: string, uids: readonly string[]): Promise<(RoleAccess | null)[]> {
    return Promise.all(uids.map((uid) => this.roleAccess(appId, uid)));
  }

  /**
   * Whether the app has this user, deactivated or not (a deleted one is gone): what realtime asks before
   * it relays a typing notice to a one-on-one receiver, in place of a copy of every user (ADR 0101). Read
   * like the role look-ups, from memory kept current by this replica's watch.
   */
  async userExists(appId: string, uid: string): Promise<UserExistence | null> {
    const { user } = await this.readModels.accessOf(appId, uid);
    return user && user.state !== 'deleted' ? { uid: user.uid } : null;
  }

  /**
   * Whose live token has this fingerprint (SHA-256 hex of the token, its `tokenId`) in this app: the
   * gateway's look-up for client access (REST with an `authtoken`, the realtime channel). A token works
   * only while it is live and its user active: deactivating or deleting the user stops it at once,
   * since the command updates this read model before it answers. Another app's token is not found.
   */
  async authTokenOwner(appId: string, tokenHash: string): Promise<AuthTokenOwner | null> {
    const doc = await this.readModels.findToken(appId, tokenHash);
    if (!doc || doc.revoked) return null;
    const user = await this.readModels.findUser(appId, doc.uid);
    return user && user.state === 'active' ? { uid: doc.uid, tokenId: doc.tokenId } : null;
  }
}
