import { ApiError, epochSeconds, groupConversationId, userConversationId } from '@chat/contracts';
import type { EventEnvelope, MessageBlocked, MessageSent, RequestContext } from '@chat/contracts';
import type { MessageIds } from '../adapters/messageIds.js';
import type { AppModeration } from '../adapters/moderation/moderationReadModels.js';
import type { Facts, MessagesReadModels } from '../adapters/readModels.js';
import { StaleMessageIdError, conversationLogDecider } from '../domain/conversationLog.js';
import type { ConversationLogCommand, GroupFacts, UserFacts } from '../domain/conversationLog.js';
import { appSystemEntity, groupEntityOf, messageView, userEntityOf } from '@chat/contracts';
import { docOfSent, factsOf } from '../projections/messages.js';
import type { MessageDoc } from '../projections/messages.js';
import type { KnownUserDoc } from '../projections/users.js';
import { deniedTo, present } from './conversationLog.js';
import type { ApiObject, ConversationLog } from './conversationLog.js';

export interface MessageSendingDeps {
  log: ConversationLog;
  readModels: MessagesReadModels;
  ids: Pick<MessageIds, 'allocate'>;
  /** The app's moderation rules, judged on every send (from memory). */
  moderation: { moderationOf(appId: string, awaited?: ReadonlyMap<string, number>): Promise<AppModeration> };
}

/** A message to send, validated: `data` is the client's own part (no entities yet). */
export interface SendInput {
  /** A uid, or `app_system` when `byApp`. */
  sender: string;
  /** The app sends without `onBehalfOf`: a system message, bound by no membership, block or scope rule. */
  byApp?: boolean;
  receiver: string;
  receiverType: 'user' | 'group';
  /** `action` only from within the service (an agent's failure notice), never from a client. */
  category: 'message' | 'custom' | 'call' | 'action';
  type: string;
  data: Record<string, unknown>;
  tags?: string[];
  muid?: string;
  parentId?: string;
  quotedMessageId?: string;
  /** Uids named in `mentionedUsers` or as `<@uid:…>` in the text. */
  mentionedUids: string[];
}

const ID_ATTEMPTS = 5;

function userFacts(user: KnownUserDoc | undefined): UserFacts | null {
  if (!user || user.deleted) return null;
  return { uid: user.uid, active: !user.deactivated, blocked: user.blocked };
}

/** Sends: a new message's facts, moderation and id, decided with the conversation's other sends. */
export class MessageSending {
  constructor(private readonly deps: MessageSendingDeps) {}

  /**
   * Appends messages whose ids are allocated on each attempt. Refusals are found by a dry run on the
   * first facts, so they burn no id; a concurrent send from another writer that got a higher id and
   * was appended first makes the stream refuse the lower one, which then takes a fresh id.
   */
  async appendWithIds(
    context: RequestContext,
    conversationId: string,
    count: number,
    commandFor: (ids: string[], attempt: number) => ConversationLogCommand | Promise<ConversationLogCommand>,
    batchable = false,
  ): Promise<EventEnvelope[]> {
    const dryRun = await commandFor(Array.from({ length: count }, () => '1'), 0);
    conversationLogDecider.decide(dryRun, conversationLogDecider.initialState());
    // The first ids are taken before the command's turn (the runner's `prepare`): at once on an idle
    // stream, or, behind a turn still appending, once that append is acknowledged, together with every
    // send queued behind it (one counter update for the next turn, while this one is applied). A builder
    // that runs again (a lost race, a stale id) takes fresh ones.
    let reserved: Promise<string[]> | null = null;
    const prepare = (): void => {
      reserved = this.deps.ids.allocate(context.actor.appId, count);
      // Awaited in the builder; a failure before then must not count as an unhandled rejection.
      reserved.catch(() => undefined);
    };
    let attempts = 0;
    for (let round = 1; ; round++) {
      try {
        return await this.deps.log.run(context, conversationId, async () => {
          const ids = await (reserved ?? this.deps.ids.allocate(context.actor.appId, count));
          reserved = null;
          attempts += 1;
          return commandFor(ids, attempts);
        }, batchable, round === 1 ? prepare : undefined);
      } catch (error) {
        if (!(error instanceof StaleMessageIdError) || round >= ID_ATTEMPTS) throw error;
      }
    }
  }

  async send(context: RequestContext, input: SendInput): Promise<ApiObject> {
    const { appId } = context.actor;
    const toGroup = input.receiverType === 'group';
    const byApp = input.byApp === true;
    const senders = byApp ? [] : [input.sender];
    const partyUids = toGroup ? senders : [...senders, input.receiver];
    const referenced = [input.parentId, input.quotedMessageId].filter((id): id is string => id !== undefined);
    const conversationId = toGroup ? groupConversationId(input.receiver) : userConversationId(input.sender, input.receiver);
    const sentAt = epochSeconds(this.deps.log.clock());
    const gather = () =>
      Promise.all([
        this.deps.log.factsWithPatience(
          appId,
          {
            users: [...partyUids, ...input.mentionedUids],
            ...(toGroup ? { guid: input.receiver, members: senders } : {}),
          },
          (f) =>
            partyUids.every((uid) => f.users.has(uid)) &&
            (!toGroup || (f.group !== null && (byApp || f.memberships.get(input.sender)?.standing === 'member'))),
        ),
        this.deps.readModels.findMessages(appId, referenced),
        this.deps.moderation.moderationOf(appId, context.awaited),
      ]);

    const commandFor = ([facts, messages, moderation]: [Facts, Map<string, MessageDoc>, AppModeration], id: string): ConversationLogCommand => {
      const text = input.category === 'message' ? input.data['text'] : undefined;
      const verdict = typeof text === 'string' && !moderation.policy.isEmpty ? moderation.policy.judge(text) : null;
      const sender = facts.users.get(input.sender);
      const receiverUser = toGroup ? undefined : facts.users.get(input.receiver);
      const mentioned = input.mentionedUids.map((uid) => facts.users.get(uid)).filter(present);
      const senderEntity = byApp ? appSystemEntity() : present(sender) ? userEntityOf(sender) : undefined;
      const entities = senderEntity
        ? {
            sender: { entity: senderEntity, entityType: 'user' },
            receiver: toGroup
              ? facts.group ? { entity: groupEntityOf(facts.group), entityType: 'group' } : undefined
              : present(receiverUser) ? { entity: userEntityOf(receiverUser, conversationId), entityType: 'user' } : undefined,
          }
        : undefined;
      const data: Record<string, unknown> = {
        ...input.data,
        ...(verdict?.masked != null ? { text: verdict.masked } : {}),
        ...(entities?.receiver ? { entities } : {}),
        ...(mentioned.length > 0 ? { mentions: Object.fromEntries(mentioned.map((u) => [u.uid, userEntityOf(u)])) } : {}),
      };
      const message: MessageSent = {
        id,
        conversationId,
        sender: input.sender,
        receiver: input.receiver,
        receiverType: input.receiverType,
        category: input.category,
        type: input.type,
        data,
        ...(input.tags !== undefined ? { tags: input.tags } : {}),
        ...(input.muid !== undefined ? { muid: input.muid } : {}),
        ...(input.parentId !== undefined ? { parentId: input.parentId } : {}),
        ...(input.quotedMessageId !== undefined ? { quotedMessageId: input.quotedMessageId } : {}),
        ...(mentioned.length > 0 ? { mentionedUids: mentioned.map((u) => u.uid) } : {}),
        sentAt,
      };
      const group: GroupFacts | null = facts.group
        ? {
            guid: facts.group.guid,
            senderStanding: facts.memberships.get(input.sender)?.standing ?? 'none',
            denied: deniedTo(facts, input.sender),
          }
        : null;
      const parentDoc = input.parentId !== undefined ? messages.get(input.parentId) : undefined;
      const quotedDoc = input.quotedMessageId !== undefined ? messages.get(input.quotedMessageId) : undefined;
      return {
        type: 'SendMessage',
        message,
        sender: byApp ? 'app' : userFacts(sender),
        receiver: toGroup ? { kind: 'group', group } : { kind: 'user', user: userFacts(receiverUser) },
        ...(input.parentId !== undefined ? { parent: parentDoc ? factsOf(parentDoc) : null } : {}),
        ...(input.quotedMessageId !== undefined ? { quoted: quotedDoc ? factsOf(quotedDoc) : null } : {}),
        ...(verdict && (verdict.block || verdict.flags.length > 0) ? { moderation: { block: verdict.block, flags: verdict.flags } } : {}),
      };
    };

    // The dry run and the first attempt share one read of the facts (every retry reads them again). It
    // starts beside the `muid` look-up: CometChat clients resend with the same `muid` after a lost
    // answer, and the first message is the answer (the read is then dropped).
    const first = gather();
    first.catch(() => undefined);
    const earlier = input.muid !== undefined ? await this.deps.readModels.findBySenderMuid(appId, input.sender, input.muid) : null;
    if (earlier) return messageView(earlier, input.sender);
    // A send reads users and memberships, never the messages before it: concurrent sends to one
    // conversation are decided together and appended as one commit.
    const events = await this.appendWithIds(
      context,
      conversationId,
      1,
      async ([id], attempt) => commandFor(await (attempt <= 1 ? first : gather()), id ?? '0'),
      true,
    );
    const [outcome] = events;
    if (outcome?.type === 'MessageBlocked') {
      const { message, match } = outcome.data as MessageBlocked;
      throw new ApiError('ERR_BLOCKED_BY_EXTENSION', `The message was blocked by the moderation rule ${match.ruleName} (${match.ruleId}); it waits for review.`, {
        messageId: message.id,
        ruleId: match.ruleId,
      });
    }
    const sent = outcome?.data as MessageSent;
    return messageView(docOfSent(appId, sent), input.sender);
  }
}
