import { ApiError, userConversationId } from '@chat/contracts';
import type { RequestContext } from '@chat/contracts';
import type { RelationKind, UserReadModels } from '../../adapters/readModels.js';
import type { UserDoc } from '../../projections/users/users.js';
import { compareKeys, listMeta, pageInMemory } from '@chat/http';
import type { KeyOrder, ListCursor } from '@chat/http';
import { UserCommands } from '../context.js';
import type { UsersDeps } from '../context.js';
import type { UsersApp } from '../users/users.js';
import { renderUser } from '../views.js';

export interface PerUidResult {
  success: boolean;
  message: string;
}

/** Friends and blocked users are listed by name, then uid. */
const BY_NAME: KeyOrder = [1, 1];

/** Friends and blocked users of the path's user (the acting user; onBehalfOf plays no part). */
export class RelationsApp {
  private readonly runner: UserCommands;
  private readonly readModels: UserReadModels;

  constructor(
    deps: UsersDeps,
    private readonly users: UsersApp,
  ) {
    this.runner = new UserCommands(deps);
    this.readModels = deps.readModels;
  }

  /** Every named user must exist and be active; the first that is not answers 404 and nothing changes. */
  private async requireUsers(appId: string, uids: string[]): Promise<Map<string, UserDoc>> {
    const found = await this.readModels.findUsers(appId, uids);
    const missing = uids.find((uid) => found.get(uid)?.state !== 'active');
    if (missing !== undefined) throw new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${missing} does not exist.`);
    return found;
  }

  private async listRelated(kind: RelationKind, context: RequestContext, uid: string, cursor: ListCursor, perPage: number, searchKey?: string) {
    const { appId } = context.actor;
    await this.users.activeUser(appId, uid);
    const edges = await this.readModels.relationsOf(kind, appId, uid);
    const docs = await this.readModels.findUsers(appId, edges.map((edge) => edge.other));
    const needle = searchKey?.toLowerCase();
    const visible = edges
      .map((edge) => ({ edge, doc: docs.get(edge.other) }))
      .filter((entry): entry is { edge: typeof entry.edge; doc: UserDoc } => entry.doc?.state === 'active')
      .filter(({ doc }) => needle === undefined || doc.sortName.includes(needle) || doc.uid.includes(needle))
      // Code-point order, the one cursor keys compare in (`compareKeys`).
      .sort((a, b) => compareKeys(BY_NAME, [a.doc.sortName, a.doc.uid], [b.doc.sortName, b.doc.uid]));
    const shown = pageInMemory(visible, ({ doc }) => [doc.sortName, doc.uid], BY_NAME, cursor, perPage);
    const data = shown.items.map(({ edge, doc }) => ({
      ...renderUser(doc, { withTags: false, viewer: uid }),
      conversationId: userConversationId(uid, doc.uid),
      ...(kind === 'blocks' ? { blockedByMe: true, blockedByMeAt: edge.since, blockedAt: edge.since } : {}),
    }));
    return { data, meta: listMeta(visible.length, data.length, perPage, cursor, shown.next) };
  }

  listFriends(context: RequestContext, uid: string, cursor: ListCursor, perPage: number, searchKey?: string) {
    return this.listRelated('friends', context, uid, cursor, perPage, searchKey);
  }

  listBlocked(context: RequestContext, uid: string, cursor: ListCursor, perPage: number) {
    return this.listRelated('blocks', context, uid, cursor, perPage);
  }

  async addFriends(context: RequestContext, uid: string, accepted: string[]) {
    const { appId } = context.actor;
    await this.users.activeUser(appId, uid);
    await this.requireUsers(appId, accepted);
    const already = await this.readModels.related('friends', appId, uid, accepted);
    const fresh = [...new Set(accepted)].filter((friend) => !already.has(friend));
    await this.runner.onUser(context, uid, (now) => ({ type: 'AddFriends', uid, friendUids: fresh, now }));
    const results: Record<string, PerUidResult> = {};
    for (const friend of accepted) {
      results[friend] = already.has(friend)
        ? { success: false, message: `The users with UIDs ${uid} and ${friend} are already friends.` }
        : { success: true, message: 'Created relationship with status accepted.' };
    }
    return { accepted: results };
  }

  async removeFriends(context: RequestContext, uid: string, friends: string[]) {
    const { appId } = context.actor;
    await this.users.activeUser(appId, uid);
    const related = await this.readModels.related('friends', appId, uid, friends);
    const current = [...new Set(friends)].filter((friend) => related.has(friend));
    await this.runner.onUser(context, uid, (now) => ({ type: 'RemoveFriends', uid, friendUids: current, now }));
    return { success: true, message: `Deleted ${current.length} friend relation(s) of the user with uid ${uid} successfully.` };
  }

  async block(context: RequestContext, uid: string, targets: string[]) {
    const { appId } = context.actor;
    await this.users.activeUser(appId, uid);
    if (targets.includes(uid)) throw new ApiError('ERR_CANNOT_BLOCK_SELF', 'A user cannot block themselves.');
    await this.requireUsers(appId, targets);
    await this.runner.onUser(context, uid, (now) => ({ type: 'BlockUsers', uid, targets, now }));
    const results: Record<string, PerUidResult> = {};
    for (const target of targets) {
      results[target] = { success: true, message: `The user with UID ${uid} has blocked user with UID ${target} successfully.` };
    }
    return results;
  }

  async unblock(context: RequestContext, uid: string, targets: string[]) {
    const { appId } = context.actor;
    await this.users.activeUser(appId, uid);
    const blocked = await this.readModels.related('blocks', appId, uid, targets);
    await this.runner.onUser(context, uid, (now) => ({ type: 'UnblockUsers', uid, targets, now }));
    const results: Record<string, PerUidResult> = {};
    for (const target of targets) {
      results[target] = blocked.has(target)
        ? { success: true, message: `The user with UID ${uid} has unblocked user with UID ${target} successfully.` }
        : { success: false, message: `The user with UID ${uid} has not blocked user with UID ${target}.` };
    }
    return results;
  }
}
