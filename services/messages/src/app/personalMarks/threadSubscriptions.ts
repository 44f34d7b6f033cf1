import { groupConversationId, userConversationId } from '@chat/contracts';
import type { RequestContext } from '@chat/contracts';
import { commandMetadata } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import type { PagePosition } from '@chat/mongo';
import type { MessagesReadModels } from '../../adapters/readModels.js';
import type { PersonalReadModels, ThreadScope } from '../../adapters/personalMarks/personalReadModels.js';
import { threadSubscriptionDecider, threadSubscriptionStream } from '../../domain/personalMarks/threadSubscriptions.js';
import type { ChangeThreadSubscription } from '../../domain/personalMarks/threadSubscriptions.js';
import { messageView } from '@chat/contracts';
import type { MessageDoc } from '../../projections/messages.js';
import { messageTarget } from './messageTarget.js';
import type { MessagesApp } from '../messages.js';
import type { ApiObject } from '../conversationLog.js';

export interface ThreadSubscriptionsDeps {
  runner: CommandRunner;
  messages: MessagesApp;
  readModels: MessagesReadModels;
  personal: PersonalReadModels;
  clock?: () => Date;
}

/** `GET /threads`: one conversation (`uid` or `guid`) or all; the threads the user follows, or all they can see. */
export interface ThreadListQuery {
  uid?: string;
  guid?: string;
  /** Only the threads the acting user follows (needs one). */
  participatedByMe: boolean;
  perPage: number;
  page: number;
}

/** Who follows a thread: whoever said so last, else its sender (a sender follows their own thread unasked). */
function follows(uid: string, parent: MessageDoc, said: boolean | undefined): boolean {
  return said ?? parent.sender === uid;
}

/**
 * Following threads (`POST`/`DELETE /messages/{id}/thread/subscription`) and the thread inbox
 * (`GET /threads`): on someone's behalf, the threads they follow; for the app, every thread.
 */
export class ThreadSubscriptions {
  private readonly clock: () => Date;

  constructor(private readonly deps: ThreadSubscriptionsDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  async change(context: RequestContext, uid: string, parentId: string, change: 'subscribe' | 'unsubscribe'): Promise<ApiObject> {
    const now = this.clock();
    await this.deps.runner.run({
      decider: threadSubscriptionDecider,
      streamId: threadSubscriptionStream(context.actor.appId, uid, parentId),
      command: async (): Promise<ChangeThreadSubscription> => {
        const target = await messageTarget(this.deps.messages, context, parentId);
        return {
          type: change === 'subscribe' ? 'SubscribeThread' : 'UnsubscribeThread',
          target: target.facts,
          actor: target.actor,
          change: { uid, parentId, conversationId: target.doc?.conversationId ?? '', at: Math.floor(now.getTime() / 1000) },
        };
      },
      metadata: commandMetadata(context, now),
    });
    const verb = change === 'subscribe' ? 'subscribed to' : 'unsubscribed from';
    return { success: true, message: `${uid} has ${verb} the thread of message ${parentId}.` };
  }

  /** A page of threads, newest thread first, each with its parent, reply count and newest reply. */
  async list(context: RequestContext, query: ThreadListQuery): Promise<{ total: number; items: ApiObject[] }> {
    const { appId, uid } = context.actor;
    const position: PagePosition = { after: undefined, skip: (query.page - 1) * query.perPage };
    const conversationId =
      query.guid !== undefined ? groupConversationId(query.guid) : query.uid !== undefined && uid !== undefined ? userConversationId(uid, query.uid) : undefined;
    if (uid === undefined || !query.participatedByMe) {
      const scope: ThreadScope = {
        appId,
        ...(conversationId !== undefined ? { conversationId } : {}),
        ...(query.uid !== undefined && uid === undefined ? { oneOnOneOf: query.uid } : {}),
        ...(uid !== undefined ? { visibleTo: await this.deps.messages.queries.visibilityOf(context) } : {}),
      };
      const { total, items } = await this.deps.personal.pageThreads(scope, position, query.perPage);
      return { total, items: await this.rows(appId, uid, items, false) };
    }
    const followed = await this.followedBy(appId, uid, conversationId);
    const page = followed.slice(position.skip, position.skip + query.perPage);
    return { total: followed.length, items: await this.rows(appId, uid, page, true) };
  }

  /** The threads `uid` follows now, newest thread first (ids grow), optionally of one conversation. */
  private async followedBy(appId: string, uid: string, conversationId: string | undefined): Promise<MessageDoc[]> {
    const [said, started] = await Promise.all([this.deps.personal.subscriptionsOf(appId, uid), this.deps.personal.threadsStartedBy(appId, uid)]);
    const saidOf = new Map(said.map((doc) => [doc.parentId, doc.subscribed]));
    const candidates = [...new Set([...said.filter((doc) => doc.subscribed).map((doc) => doc.parentId), ...started])];
    const parents = await this.deps.readModels.findMessages(appId, candidates);
    return [...parents.values()]
      .filter((parent) => !parent.isDeleted && follows(uid, parent, saidOf.get(parent.id)))
      .filter((parent) => conversationId === undefined || parent.conversationId === conversationId)
      .sort((a, b) => b.seq - a.seq);
  }

  /** `followed`: every row is a thread the viewer follows (the inbox); otherwise nothing is said about it. */
  private async rows(appId: string, viewer: string | undefined, parents: readonly MessageDoc[], followed: boolean): Promise<ApiObject[]> {
    const last = await this.deps.personal.lastReplies(appId, parents.map((parent) => parent.id));
    return parents.map((parent) => {
      const reply = last.get(parent.id);
      const receiverId = parent.receiverType === 'user' && viewer !== undefined && parent.receiver === viewer ? parent.sender : parent.receiver;
      return {
        parentMessageId: parent.id,
        parentMessage: messageView(parent, viewer),
        replyCount: parent.replyCount,
        ...(reply ? { lastReply: messageView(reply, viewer) } : {}),
        ...(followed ? { subscribed: true } : {}),
        updatedAt: Math.max(parent.updatedAt, reply?.sentAt ?? 0),
        conversationId: parent.conversationId,
        receiverType: parent.receiverType,
        receiverId,
      };
    });
  }
}
