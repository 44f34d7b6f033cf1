import { docOfSent, messageEventTypes, messageView } from '@chat/contracts';
import type { CursorFrame, EventOf, KnownEvent, MessageDoc } from '@chat/contracts';
import { actionTargetOf } from './membership.js';

/** Frames a client can resume, each carrying the cursor after it: the published contract's (ADR 0069, 0075). */
type CursorFrameType = CursorFrame['type'];

/** The events that become frames, by topic: the consumer decodes nothing else (ADR 0044's headers). */
export const framedEventTypes = [
  'MessageSent',
  'MessageEdited',
  'MessageDeleted',
  'MessageReactionAdded',
  'MessageReactionRemoved',
  'ConversationRead',
  'ConversationDelivered',
] as const;

type FramedEvent = EventOf<(typeof framedEventTypes)[number]>;
const framed: ReadonlySet<string> = new Set(framedEventTypes);
const messageEvents: ReadonlySet<string> = new Set(messageEventTypes);

/** One event's frame: its type, who may receive it, and its `data` as each recipient sees it (JSON). */
export interface FramePlan {
  type: CursorFrameType;
  appId: string;
  recipients: ReadonlySet<string>;
  dataJson(viewer: string): string;
}

/** What the mapping reads besides the event: the connected members of a group (the index). */
export type MembersOf = (appId: string, guid: string) => ReadonlySet<string>;

/** Who a conversation is between, from its id alone (when the message is not in the window). */
export type ConversationParties = { kind: 'group'; guid: string } | { kind: 'user'; uids: readonly [string, string] };

const GROUP_PREFIX = 'group_';
const USER_INFIX = '_user_';

/**
 * `group_<guid>` or `<uid>_user_<uid>`; null when the id could be read both ways (uids and guids may
 * themselves contain `_user_`), so no frame goes to a guessed audience.
 */
export function partiesOf(conversationId: string): ConversationParties | null {
  const first = conversationId.indexOf(USER_INFIX);
  const isGroup = conversationId.startsWith(GROUP_PREFIX);
  if (first === -1) return isGroup ? { kind: 'group', guid: conversationId.slice(GROUP_PREFIX.length) } : null;
  if (isGroup || conversationId.indexOf(USER_INFIX, first + 1) !== -1) return null;
  return { kind: 'user', uids: [conversationId.slice(0, first), conversationId.slice(first + USER_INFIX.length)] };
}

function partiesOfMessage(doc: MessageDoc): ConversationParties {
  return doc.receiverType === 'group' ? { kind: 'group', guid: doc.receiver } : { kind: 'user', uids: [doc.sender, doc.receiver] };
}

function audienceOf(appId: string, parties: ConversationParties, membersOf: MembersOf, extra: readonly string[] = []): Set<string> {
  const audience = new Set(parties.kind === 'group' ? membersOf(appId, parties.guid) : parties.uids);
  for (const uid of extra) audience.add(uid);
  return audience;
}

/** The REST resource of a message for each viewer; computed once when no viewer-specific field differs. */
function messageJson(doc: MessageDoc): (viewer: string) => string {
  if (doc.reactions.length === 0) {
    // Written at the first recipient connected here, not for a plan nobody here receives.
    let shared: string | undefined;
    return () => (shared ??= JSON.stringify(messageView(doc)));
  }
  return (viewer) => JSON.stringify(messageView(doc, viewer));
}

function fixed(data: unknown): () => string {
  let json: string | undefined;
  return () => (json ??= JSON.stringify(data));
}

/**
 * The frame an event makes and who receives it (ADR 0069): a message to the two users of a one-on-one
 * conversation or to a group's members (action messages also to the user they are about, who may
 * just have left); edits, deletions and reactions to the same audience, with the message as REST
 * shows it when the window holds it (`message`, after the event); receipts to the reader and the
 * peer (a group's: the reader and the message's sender, when known). Null: no frame (an imported
 * message, an event of another kind, a conversation nobody can be sure of).
 */
export function planFrame(known: KnownEvent, message: MessageDoc | null, membersOf: MembersOf): FramePlan | null {
  if (!framed.has(known.type)) return null;
  const event = known as FramedEvent;
  const appId = event.appId;
  switch (event.type) {
    case 'MessageSent': {
      const m = event.data;
      if (m.imported) return null;
      const doc = docOfSent(appId, m);
      const target = m.receiverType === 'group' && m.category === 'action' ? actionTargetOf(m.data) : undefined;
      return { type: 'message', appId, recipients: audienceOf(appId, partiesOfMessage(doc), membersOf, target ? [target] : []), dataJson: messageJson(doc) };
    }
    case 'MessageEdited':
    case 'MessageDeleted': {
      const e = event.data;
      const parties = message ? partiesOfMessage(message) : partiesOf(e.conversationId);
      if (!parties) return null;
      const type = event.type === 'MessageEdited' ? 'message_edited' : 'message_deleted';
      // Outside the window only what the event says is known: the fields a client merges by id.
      const partial =
        event.type === 'MessageEdited'
          ? { id: e.id, conversationId: e.conversationId, data: event.data.data, ...(event.data.tags ? { tags: event.data.tags } : {}), editedAt: event.data.editedAt, ...(event.data.editedBy ? { editedBy: event.data.editedBy } : {}), updatedAt: event.data.editedAt }
          : { id: e.id, conversationId: e.conversationId, sender: event.data.sender, deletedAt: event.data.deletedAt, ...(event.data.deletedBy ? { deletedBy: event.data.deletedBy } : {}), updatedAt: event.data.deletedAt };
      const dataJson = message && !(event.type === 'MessageDeleted' && event.data.permanent) ? messageJson(message) : fixed(partial);
      return { type, appId, recipients: audienceOf(appId, parties, membersOf), dataJson };
    }
    case 'MessageReactionAdded':
    case 'MessageReactionRemoved': {
      const r = event.data;
      const parties = message ? partiesOfMessage(message) : partiesOf(r.conversationId);
      if (!parties) return null;
      const reaction = {
        messageId: r.id,
        conversationId: r.conversationId,
        reaction: r.reaction,
        uid: r.uid,
        ...(event.type === 'MessageReactionAdded' ? { reactedAt: event.data.reactedAt } : { removedAt: event.data.removedAt }),
      };
      const head = JSON.stringify(reaction).slice(0, -1);
      const view = message ? messageJson(message) : null;
      return {
        type: event.type === 'MessageReactionAdded' ? 'reaction_added' : 'reaction_removed',
        appId,
        recipients: audienceOf(appId, parties, membersOf),
        dataJson: view ? (viewer) => `${head},"message":${view(viewer)}}` : () => `${head}}`,
      };
    }
    case 'ConversationRead':
    case 'ConversationDelivered': {
      const c = event.data;
      const recipients = new Set([c.uid]);
      if (c.conversationType === 'user') recipients.add(c.conversationWith);
      else if (message) recipients.add(message.sender);
      const at = event.type === 'ConversationRead' ? { readAt: event.data.readAt } : { deliveredAt: event.data.deliveredAt };
      return {
        type: event.type === 'ConversationRead' ? 'read_receipt' : 'delivery_receipt',
        appId,
        recipients,
        dataJson: fixed({ conversationId: c.conversationId, conversationType: c.conversationType, messageId: c.messageId, uid: c.uid, ...at }),
      };
    }
    default: {
      const unreachable: never = event;
      throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The id of the message an event is about, for the window's documents. */
export function messageIdOf(event: KnownEvent): string | undefined {
  if (event.type === 'ConversationRead' || event.type === 'ConversationDelivered') return event.data.messageId;
  return messageEvents.has(event.type) ? (event as EventOf<(typeof messageEventTypes)[number]>).data.id : undefined;
}

/** A cursor frame as sent: the data is already JSON, so a group's frame is serialised once per member at most. */
export function cursorFrameText(type: CursorFrameType, cursor: string, dataJson: string): string {
  return `{"type":"${type}","cursor":"${cursor}","data":${dataJson}}`;
}
