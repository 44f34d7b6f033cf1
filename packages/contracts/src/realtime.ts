import { z } from 'zod';
import { APP_ID_PATTERN } from './ids.js';
import { messageResourceSchema } from './messageResource.js';
import { realtimeCursorSchema } from './realtimeCursor.js';

/*
 * The realtime channel (issue 24, ADR 0075): what the realtime service pushes to an app's user and
 * what it accepts back, over a WebSocket or Server-Sent Events. The server validates client frames
 * with these schemas, the client package validates server frames with them, and the AsyncAPI document
 * is generated from them, so the three cannot drift apart.
 */

export const realtimePaths = {
  /** WebSocket upgrade; the tenant from the chat host or the `appId` query parameter. */
  websocket: '/v3/realtime',
  /** Server-Sent Events: the same frames as events (`id:` cursor, `event:` type, `data:` frame). */
  events: '/v3/realtime/events',
} as const;

/** The auth token was deleted (or its user) while connected: do not reconnect with it. */
export const REALTIME_CLOSE_TOKEN_REVOKED = 4401;
/** The client read too slowly and its outgoing buffer filled: reconnect at once with the last cursor. */
export const REALTIME_CLOSE_TOO_SLOW = 4008;
export const realtimeCloseCodes = {
  [REALTIME_CLOSE_TOKEN_REVOKED]: 'The auth token was revoked or its user deleted while connected. Get a new token; reconnecting with this one gets 401.',
  [REALTIME_CLOSE_TOO_SLOW]: "The connection's outgoing buffer filled (the client stopped reading). Reconnect at once with `since` = the last cursor.",
} as const;

/** The query string of both paths (browsers cannot set headers on a WebSocket or an EventSource). */
export const realtimeQuerySchema = z.object({
  appId: z
    .string()
    .regex(APP_ID_PATTERN)
    .optional()
    .describe('The app, when connecting to the plain host rather than the chat host `{appId}.api-{region}.{domain}`.'),
  authToken: z.string().min(1).max(512).describe('An auth token of the user (`POST /v3/users/{uid}/auth_tokens`). Never logged.'),
  since: realtimeCursorSchema.optional().describe('Resume after this cursor: replays, in order and once each, every cursor frame after it.'),
});
export type RealtimeQuery = z.infer<typeof realtimeQuerySchema>;

const epochSeconds = z.number().int();
const receiverType = z.enum(['user', 'group']);
const id = z.string().min(1);

/** A message exactly as REST returns it to the connected user (`GET /v3/messages/{id}`). */
export const realtimeMessageSchema = messageResourceSchema.describe('The message as REST returns it to this user.');
export type RealtimeMessage = z.infer<typeof realtimeMessageSchema>;

/** An edit or delete: the message as far as the event tells it (id and conversation always, the changed fields). */
export const realtimeMessageChangeSchema = z
  .looseObject({
    id,
    conversationId: id,
    data: z.record(z.string(), z.unknown()).optional(),
    tags: z.array(z.string()).optional(),
    editedAt: epochSeconds.optional(),
    editedBy: z.string().optional(),
    deletedAt: epochSeconds.optional(),
    deletedBy: z.string().optional(),
    permanent: z.boolean().optional().describe('A permanent delete: drop every copy of the message.'),
  })
  .describe('The changed message: its id and conversation, and what changed (REST fields).');
export type RealtimeMessageChange = z.infer<typeof realtimeMessageChangeSchema>;

export const realtimeReactionSchema = z
  .looseObject({
    messageId: id,
    conversationId: id,
    reaction: z.string().min(1),
    uid: z.string().describe('The user who reacted (or took the reaction back).'),
    reactedAt: epochSeconds.optional(),
    removedAt: epochSeconds.optional(),
    message: realtimeMessageSchema.optional().describe('The message with its reactions after the change, when the server has it at hand.'),
  })
  .describe('One reaction with its message id.');
export type RealtimeReaction = z.infer<typeof realtimeReactionSchema>;

const receiptFields = {
  conversationId: id,
  conversationType: receiverType.optional(),
  messageId: id.describe('Everything up to and including this message.'),
  uid: z.string().describe('The user who read or received.'),
};
export const realtimeReadReceiptSchema = z.looseObject({ ...receiptFields, readAt: epochSeconds });
export const realtimeDeliveryReceiptSchema = z.looseObject({ ...receiptFields, deliveredAt: epochSeconds });
export type RealtimeReadReceipt = z.infer<typeof realtimeReadReceiptSchema>;
export type RealtimeDeliveryReceipt = z.infer<typeof realtimeDeliveryReceiptSchema>;

export const realtimeTypingSchema = z.object({
  sender: z.string().describe('The user typing.'),
  receiver: z.string().describe('The user (one-on-one) or group typed to.'),
  receiverType,
});
export type RealtimeTyping = z.infer<typeof realtimeTypingSchema>;

export const realtimePresenceSchema = z.object({
  uid: z.string(),
  status: z.enum(['online', 'offline']),
  lastActiveAt: epochSeconds.describe('When the user last had a connection (now, while online).'),
});
export type RealtimePresence = z.infer<typeof realtimePresenceSchema>;

export const realtimeResyncSchema = z.looseObject({
  reason: z
    .enum(['cursor_expired', 'cursor_unknown'])
    .optional()
    .describe('`cursor_expired`: older than the retained window; `cursor_unknown`: not a cursor of this deployment (or its partitions changed).'),
});

const cursorFrame = <T extends string, D extends z.ZodType>(type: T, data: D, description: string) =>
  z.object({ type: z.literal(type), cursor: realtimeCursorSchema, data }).describe(description);
const ephemeralFrame = <T extends string, D extends z.ZodType>(type: T, data: D, description: string) =>
  z.object({ type: z.literal(type), data }).describe(description);

export const serverFrameSchemas = {
  message: cursorFrame('message', realtimeMessageSchema, 'A new message the user may read (one-on-one as sender or receiver, group as member; group actions included).'),
  message_edited: cursorFrame('message_edited', realtimeMessageChangeSchema, 'A message the user may read was edited.'),
  message_deleted: cursorFrame('message_deleted', realtimeMessageChangeSchema, 'A message the user may read was deleted.'),
  reaction_added: cursorFrame('reaction_added', realtimeReactionSchema, 'A reaction was added to a message the user may read.'),
  reaction_removed: cursorFrame('reaction_removed', realtimeReactionSchema, 'A reaction was taken back.'),
  read_receipt: cursorFrame('read_receipt', realtimeReadReceiptSchema, 'A participant read a conversation up to a message.'),
  delivery_receipt: cursorFrame('delivery_receipt', realtimeDeliveryReceiptSchema, 'A participant received a conversation up to a message.'),
  typing_started: ephemeralFrame('typing_started', realtimeTypingSchema, 'Someone started typing to the user or a group of theirs. Ephemeral: never replayed.'),
  typing_ended: ephemeralFrame('typing_ended', realtimeTypingSchema, 'Someone stopped typing. Ephemeral: never replayed.'),
  presence: ephemeralFrame('presence', realtimePresenceSchema, 'A friend or one-on-one peer came online or went offline. Ephemeral.'),
  resync_required: z
    .object({ type: z.literal('resync_required'), cursor: realtimeCursorSchema.optional(), data: realtimeResyncSchema.optional() })
    .describe(
      'The `since` cursor is older than what the server retains (or not one of its cursors): re-read over REST; the frames after this one are live. ' +
        'A cursor, when present, is where they start.',
    ),
  error: ephemeralFrame(
    'error',
    z.looseObject({ code: z.string(), message: z.string() }),
    'A client frame the server refused (not JSON, an unknown type, typing to a conversation the user may not write to). The connection stays open.',
  ),
  pong: z.object({ type: z.literal('pong') }).describe('The answer to a ping.'),
} as const;

export const serverFrameSchema = z.discriminatedUnion('type', [
  serverFrameSchemas.message,
  serverFrameSchemas.message_edited,
  serverFrameSchemas.message_deleted,
  serverFrameSchemas.reaction_added,
  serverFrameSchemas.reaction_removed,
  serverFrameSchemas.read_receipt,
  serverFrameSchemas.delivery_receipt,
  serverFrameSchemas.typing_started,
  serverFrameSchemas.typing_ended,
  serverFrameSchemas.presence,
  serverFrameSchemas.resync_required,
  serverFrameSchemas.error,
  serverFrameSchemas.pong,
]);
export type ServerFrame = z.infer<typeof serverFrameSchema>;
export type ServerFrameType = ServerFrame['type'];
export type ServerFrameOf<T extends ServerFrameType> = Extract<ServerFrame, { type: T }>;
/** Frames that always carry a cursor: replayed on resume, in order, once each. */
export type CursorFrame = Exclude<Extract<ServerFrame, { cursor: string }>, { type: 'resync_required' }>;

export const serverFrameTypes = Object.keys(serverFrameSchemas) as ServerFrameType[];
export const cursorFrameTypes = serverFrameTypes.filter((type) => type !== 'resync_required' && 'cursor' in serverFrameSchemas[type].shape) as CursorFrame['type'][];

export function isCursorFrame(frame: ServerFrame): frame is CursorFrame {
  return (cursorFrameTypes as readonly string[]).includes(frame.type);
}

const typingTarget = {
  receiver: z.string().min(1).max(100).describe('The uid (one-on-one) or guid the user is typing to; a conversation the user may write to.'),
  receiverType,
};
export const clientFrameSchemas = {
  typing_started: z.object({ type: z.literal('typing_started'), ...typingTarget }).describe('The user started typing.'),
  typing_ended: z.object({ type: z.literal('typing_ended'), ...typingTarget }).describe('The user stopped typing.'),
  ping: z.object({ type: z.literal('ping') }).describe('Keep-alive: the server answers `pong`.'),
} as const;
export const clientFrameSchema = z.discriminatedUnion('type', [clientFrameSchemas.typing_started, clientFrameSchemas.typing_ended, clientFrameSchemas.ping]);
export type ClientFrame = z.infer<typeof clientFrameSchema>;
export type ClientFrameType = ClientFrame['type'];

/** A server frame from its JSON text, or undefined when it is not one (a client skips it). */
export function parseServerFrame(text: string): ServerFrame | undefined {
  try {
    const parsed = serverFrameSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
