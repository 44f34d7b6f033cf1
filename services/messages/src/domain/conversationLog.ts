import { ApiError, conversationLogStreamId } from '@chat/contracts';
import type {
  MessageBlocked,
  MessageFlagged,
  MessageReviewed,
  RuleMatch,
  MessageDeleted,
  MessageEdited,
  MessageReactionAdded,
  MessageReactionRemoved,
  MessagePinned,
  MessageSent,
  MessageUnpinned,
} from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';
import { decidePin, decideUnpin, pinnedAfter } from './messagePins.js';
import type { PinMessage, UnpinMessage } from './messagePins.js';
import { mustBeAllowed } from './groupScopePermissions.js';
import { decideReview } from './moderation/messageReview.js';
import type { ReviewCommand } from './moderation/messageReview.js';
import type { MemberAction } from './groupScopePermissions.js';

/** What this service's projections know of a user at the moment of a command. */
export interface UserFacts {
  uid: string;
  active: boolean;
  /** Uids this user has blocked. */
  blocked: readonly string[];
}

/** What a group send needs to know: the group exists and where the sender stands in it. */
export interface GroupFacts {
  guid: string;
  senderStanding: 'member' | 'banned' | 'none';
  /** What the group's scope permissions deny the sender's scope (absent: nothing). */
  denied?: readonly MemberAction[];
}

/** The parts of a stored message the decisions about it need. */
export interface MessageFacts {
  id: string;
  conversationId: string;
  sender: string;
  category: string;
  parentId?: string;
  deleted: boolean;
  /** Reactions as (reaction, uid) pairs. */
  reactions: readonly { reaction: string; uid: string }[];
}

/**
 * Who acts on an existing message: the app itself (no onBehalfOf), or a user with their standing in
 * the message's conversation (`moderator` = group admin or moderator).
 */
export type MessageActor =
  | { kind: 'app' }
  | { kind: 'user'; uid: string; standing: 'participant' | 'moderator' | 'outsider'; denied?: readonly MemberAction[] };

export interface SendMessage {
  type: 'SendMessage';
  message: MessageSent;
  /**
   * Null when the sender is unknown to this service; `app` when the app sends without `onBehalfOf`
   * (sender `app_system`): no membership, block or scope rule binds the app itself.
   */
  sender: UserFacts | 'app' | null;
  /** A user receiver (null: unknown) or a group receiver (null: unknown guid). */
  receiver: { kind: 'user'; user: UserFacts | null } | { kind: 'group'; group: GroupFacts | null };
  /** The thread's first message, when the message is a reply (null: unknown id). */
  parent?: MessageFacts | null;
  quoted?: MessageFacts | null;
  /** The app's rules on the text: a blocking match stores the message as blocked instead of sending it. */
  moderation?: { block: RuleMatch | null; flags: readonly RuleMatch[] };
}

export interface EditMessage {
  type: 'EditMessage';
  target: MessageFacts | null;
  actor: MessageActor;
  edit: MessageEdited;
}

export interface DeleteMessage {
  type: 'DeleteMessage';
  target: MessageFacts | null;
  actor: MessageActor;
  deletion: MessageDeleted;
}

export interface ReactToMessage {
  type: 'ReactToMessage';
  target: MessageFacts | null;
  actor: MessageActor;
  reaction: MessageReactionAdded;
}

export interface RemoveReaction {
  type: 'RemoveReaction';
  target: MessageFacts | null;
  actor: MessageActor;
  removal: MessageReactionRemoved;
}

/**
 * Action messages for one group event. `groupEventVersion` is the event's version in its group
 * stream: each group stream feeds exactly one group conversation, so a version not above the last
 * one recorded is a redelivery and is ignored.
 */
export interface RecordGroupActions {
  type: 'RecordGroupActions';
  groupEventVersion: number;
  messages: MessageSent[];
}

/**
 * Messages from a data import, already checked against what this service knows (senders and
 * receivers exist): history, so no membership or block rule of today applies to it. Ids are
 * allocated in `sentAt` order, so the conversation lists them as they were sent.
 */
export interface ImportMessages {
  type: 'ImportMessages';
  messages: MessageSent[];
}

export type ConversationLogCommand =
  | SendMessage
  | ImportMessages
  | EditMessage
  | DeleteMessage
  | ReactToMessage
  | RemoveReaction
  | RecordGroupActions
  | PinMessage
  | UnpinMessage
  | ReviewCommand;

export type ConversationLogEvent =
  | DomainEvent<'MessageSent', MessageSent>
  | DomainEvent<'MessageEdited', MessageEdited>
  | DomainEvent<'MessageDeleted', MessageDeleted>
  | DomainEvent<'MessageReactionAdded', MessageReactionAdded>
  | DomainEvent<'MessageReactionRemoved', MessageReactionRemoved>
  | DomainEvent<'MessagePinned', MessagePinned>
  | DomainEvent<'MessageUnpinned', MessageUnpinned>
  | DomainEvent<'MessageBlocked', MessageBlocked>
  | DomainEvent<'MessageFlagged', MessageFlagged>
  | DomainEvent<'MessageReviewed', MessageReviewed>;

/**
 * One stream per conversation holds every message event of that conversation, so each consumer sees
 * them in order (Kafka key = stream id) and a projection's version guard per conversation works.
 * The state stays small: facts about individual messages come from the messages read model inside
 * the command; the stream itself guarantees id order and once-only action messages.
 */
export interface ConversationLogState {
  messageCount: number;
  lastMessageId: string | null;
  lastGroupEventVersion: number;
  /** Ids of the conversation's pinned messages (at most 100), for the pin limit. */
  pinnedIds: string[];
}

/**
 * Thrown when a message id was allocated before a concurrent send to the same conversation that got
 * a higher id appended first: appending it would break id order in the stream, so the caller takes a
 * new id and tries again.
 */
export class StaleMessageIdError extends Error {
  override readonly name = 'StaleMessageIdError';
}

function isNewer(id: string, last: string | null): boolean {
  return last === null || BigInt(id) > BigInt(last);
}

function userMustBeActive(user: UserFacts | null, uid: string, role: 'sender' | 'receiver'): UserFacts {
  if (!user || !user.active) {
    throw new ApiError('ERR_UID_NOT_FOUND', `The ${role} ${uid} does not exist or is deactivated.`);
  }
  return user;
}

function decideSend(command: SendMessage, state: ConversationLogState): ConversationLogEvent[] {
  const { message } = command;
  const sender = command.sender === 'app' ? null : userMustBeActive(command.sender, message.sender, 'sender');
  if (command.receiver.kind === 'user') {
    if (message.sender === message.receiver) {
      throw new ApiError('ERR_MESSAGE_TO_SELF', 'A one-on-one message needs a receiver other than the sender.');
    }
    const receiver = userMustBeActive(command.receiver.user, message.receiver, 'receiver');
    if (sender?.blocked.includes(receiver.uid)) {
      throw new ApiError('ERR_BLOCKED_RECEIVER', `${sender.uid} has blocked ${receiver.uid}; unblock to send messages.`);
    }
    if (sender && receiver.blocked.includes(sender.uid)) {
      throw new ApiError('ERR_BLOCKED_SENDER', `${receiver.uid} has blocked ${sender.uid}.`);
    }
  } else {
    const { group } = command.receiver;
    if (!group) throw new ApiError('ERR_GUID_NOT_FOUND', `The group with guid ${message.receiver} does not exist.`);
    if (sender && group.senderStanding === 'banned') {
      throw new ApiError('ERR_BANNED_GROUPMEMBER', `${sender.uid} is banned from the group ${group.guid}.`);
    }
    if (sender && group.senderStanding !== 'member') {
      throw new ApiError('ERR_GROUP_NOT_JOINED', `${sender.uid} is not a member of the group ${group.guid}.`);
    }
    if (sender) mustBeAllowed(group.denied, command.parent !== undefined ? 'sendThreadedMessage' : 'sendMessage', sender.uid, group.guid);
  }
  if (command.parent !== undefined) {
    const parent = command.parent;
    if (!parent || parent.deleted) {
      throw new ApiError('ERR_MESSAGE_ID_NOT_FOUND', `The message ${message.parentId ?? ''} does not exist.`);
    }
    if (parent.parentId !== undefined) {
      throw new ApiError('ERR_MESSAGE_THREAD_NESTING', 'A reply cannot start a thread of its own; reply to the thread’s first message.');
    }
    if (parent.conversationId !== message.conversationId) {
      throw new ApiError('ERR_WRONG_MESSAGE_THREAD', 'A thread reply must go to the conversation of the message it replies to.');
    }
  }
  if (command.quoted !== undefined) {
    const quoted = command.quoted;
    if (!quoted || quoted.conversationId !== message.conversationId) {
      throw new ApiError('ERR_MESSAGE_ID_NOT_FOUND', `The quoted message ${message.quotedMessageId ?? ''} does not exist in this conversation.`);
    }
  }
  if (!isNewer(message.id, state.lastMessageId)) throw new StaleMessageIdError(message.id);
  const { moderation } = command;
  // Blocked only once every other rule let it through: a refused send is not a message to review.
  if (moderation?.block) return [{ type: 'MessageBlocked', data: { message, match: moderation.block, blockedAt: message.sentAt } }];
  const flags: ConversationLogEvent[] = (moderation?.flags ?? []).map((match) => ({
    type: 'MessageFlagged',
    data: { id: message.id, conversationId: message.conversationId, flaggedBy: 'moderation', match, flaggedAt: message.sentAt },
  }));
  return [{ type: 'MessageSent', data: message }, ...flags];
}

function existing(target: MessageFacts | null, id: string): MessageFacts {
  if (!target) throw new ApiError('ERR_MESSAGE_ID_NOT_FOUND', `The message ${id} does not exist.`);
  return target;
}

function mustSee(actor: MessageActor, target: MessageFacts): void {
  if (actor.kind === 'user' && actor.standing === 'outsider') {
    throw new ApiError('ERR_MESSAGE_NO_ACCESS', `${actor.uid} is not a participant of the conversation of message ${target.id}.`);
  }
}

/** Group scope permissions bind members acting on their behalf; the app itself is never bound. */
function actorMayDo(actor: MessageActor, action: MemberAction, target: MessageFacts): void {
  if (actor.kind === 'user') mustBeAllowed(actor.denied, action, actor.uid, target.conversationId.replace(/^group_/, ''));
}

function mustBeChangeable(target: MessageFacts, verb: string): void {
  if (target.category === 'action') {
    throw new ApiError('ERR_MESSAGE_ACTION_NOT_ALLOWED', `Action messages cannot be ${verb}.`);
  }
  if (target.deleted) {
    throw new ApiError('ERR_MESSAGE_ACTION_NOT_ALLOWED', `The message ${target.id} is deleted and cannot be ${verb}.`);
  }
}

function decideEdit(command: EditMessage): ConversationLogEvent[] {
  const target = existing(command.target, command.edit.id);
  mustSee(command.actor, target);
  mustBeChangeable(target, 'edited');
  actorMayDo(command.actor, 'editMessage', target);
  // Only the sender edits (the app may edit anything): a moderator may remove a message, not reword it.
  if (command.actor.kind === 'user' && command.actor.uid !== target.sender) {
    throw new ApiError('ERR_MESSAGE_NOT_A_SENDER', 'Only the sender of a message can edit it.');
  }
  return [{ type: 'MessageEdited', data: command.edit }];
}

function decideDelete(command: DeleteMessage): ConversationLogEvent[] {
  const target = existing(command.target, command.deletion.id);
  mustSee(command.actor, target);
  if (target.category === 'action') {
    throw new ApiError('ERR_MESSAGE_ACTION_NOT_ALLOWED', 'Action messages cannot be deleted.');
  }
  const { actor } = command;
  if (actor.kind === 'user' && actor.uid !== target.sender && actor.standing !== 'moderator') {
    throw new ApiError('ERR_MESSAGE_NOT_A_SENDER', 'Only the sender of a message (or a group admin or moderator) can delete it.');
  }
  // Deleting a soft-deleted message again changes nothing, unless it is now erased for good.
  if (target.deleted && !command.deletion.permanent) return [];
  return [{ type: 'MessageDeleted', data: command.deletion }];
}

function decideReact(command: ReactToMessage): ConversationLogEvent[] {
  const target = existing(command.target, command.reaction.id);
  mustSee(command.actor, target);
  mustBeChangeable(target, 'reacted to');
  actorMayDo(command.actor, 'addReaction', target);
  const { reaction, uid } = command.reaction;
  if (target.reactions.some((r) => r.reaction === reaction && r.uid === uid)) return [];
  return [{ type: 'MessageReactionAdded', data: command.reaction }];
}

function decideUnreact(command: RemoveReaction): ConversationLogEvent[] {
  const target = existing(command.target, command.removal.id);
  mustSee(command.actor, target);
  const { reaction, uid } = command.removal;
  if (!target.reactions.some((r) => r.reaction === reaction && r.uid === uid)) {
    throw new ApiError('ERR_REACTION_NOT_FOUND', `${uid} has not reacted with ${reaction} to message ${target.id}.`);
  }
  return [{ type: 'MessageReactionRemoved', data: command.removal }];
}

function decideGroupActions(command: RecordGroupActions, state: ConversationLogState): ConversationLogEvent[] {
  if (command.groupEventVersion <= state.lastGroupEventVersion) return [];
  const [first] = command.messages;
  if (first && !isNewer(first.id, state.lastMessageId)) throw new StaleMessageIdError(first.id);
  return command.messages.map((message) => ({ type: 'MessageSent', data: message }));
}

function decide(command: ConversationLogCommand, state: ConversationLogState): ConversationLogEvent[] {
  switch (command.type) {
    case 'SendMessage':
      return decideSend(command, state);
    case 'EditMessage':
      return decideEdit(command);
    case 'DeleteMessage':
      return decideDelete(command);
    case 'ReactToMessage':
      return decideReact(command);
    case 'RemoveReaction':
      return decideUnreact(command);
    case 'RecordGroupActions':
      return decideGroupActions(command, state);
    case 'ImportMessages': {
      const [first] = command.messages;
      if (first && !isNewer(first.id, state.lastMessageId)) throw new StaleMessageIdError(first.id);
      return command.messages.map((message) => ({ type: 'MessageSent', data: { ...message, imported: true } }));
    }
    case 'PinMessage':
      return decidePin(command, state.pinnedIds).map((data) => ({ type: 'MessagePinned', data }));
    case 'UnpinMessage':
      return decideUnpin(command, state.pinnedIds).map((data) => ({ type: 'MessageUnpinned', data }));
    case 'FlagMessage':
    case 'ReviewFlagged':
      return decideReview(command);
    case 'ReviewBlocked':
      // An approved message is delivered under a new id, which must be the conversation's newest.
      if (command.delivered && !isNewer(command.delivered.id, state.lastMessageId)) throw new StaleMessageIdError(command.delivered.id);
      return decideReview(command);
    default: {
      const unreachable: never = command;
      throw new Error(`unknown command ${JSON.stringify(unreachable)}`);
    }
  }
}

function evolve(state: ConversationLogState, event: ConversationLogEvent): ConversationLogState {
  switch (event.type) {
    case 'MessageSent': {
      // Action messages name the group event they came from: the stream remembers the newest one.
      const fromGroupEvent = event.data.sourceEvent?.version;
      return {
        ...state,
        messageCount: state.messageCount + 1,
        lastMessageId: isNewer(event.data.id, state.lastMessageId) ? event.data.id : state.lastMessageId,
        lastGroupEventVersion:
          typeof fromGroupEvent === 'number' ? Math.max(state.lastGroupEventVersion, fromGroupEvent) : state.lastGroupEventVersion,
      };
    }
    case 'MessagePinned':
      return { ...state, pinnedIds: pinnedAfter(state.pinnedIds, { type: 'pinned', id: event.data.id }) };
    case 'MessageUnpinned':
      return { ...state, pinnedIds: pinnedAfter(state.pinnedIds, { type: 'unpinned', id: event.data.id }) };
    case 'MessageDeleted':
      return state.pinnedIds.includes(event.data.id) ? { ...state, pinnedIds: pinnedAfter(state.pinnedIds, { type: 'unpinned', id: event.data.id }) } : state;
    case 'MessageBlocked':
      // A blocked message keeps its id: later ones must still be newer.
      return { ...state, lastMessageId: isNewer(event.data.message.id, state.lastMessageId) ? event.data.message.id : state.lastMessageId };
    case 'MessageEdited':
    case 'MessageReactionAdded':
    case 'MessageReactionRemoved':
    case 'MessageFlagged':
    case 'MessageReviewed':
      return state;
    default: {
      const unreachable: never = event;
      throw new Error(`unknown event ${JSON.stringify(unreachable)}`);
    }
  }
}

export const conversationLogDecider: Decider<ConversationLogState, ConversationLogCommand, ConversationLogEvent> = {
  initialState: () => ({ messageCount: 0, lastMessageId: null, lastGroupEventVersion: 0, pinnedIds: [] }),
  decide,
  evolve,
  // 3: the state keeps the pinned ids; older snapshots are rebuilt from the stream.
  snapshotVersion: 3,
};

export function conversationLogStream(appId: string, conversationId: string): string {
  return conversationLogStreamId(appId, conversationId);
}
