import { AS_OF_DESCRIPTION, ApiError, UID_PATTERN, callActions, callModes } from '@chat/contracts';
import type { ErrorCode } from '@chat/contracts';
import { cursorParameter, parseWith } from '@chat/http';
import { z } from 'zod';
import type { SendInput } from '../app/messageSending.js';

/** CometChat: a message, metadata included, is at most 65,536 characters of JSON. */
export const MAX_MESSAGE_CHARS = 65_536;
export const MEDIA_TYPES = ['image', 'video', 'audio', 'file'] as const;
const MESSAGE_TYPES = ['text', ...MEDIA_TYPES] as const;
/** Parts of `data` this service writes itself; a client's copy would be ignored or contradict it. */
const SERVER_DATA_KEYS = ['entities', 'reactions', 'mentions'];
const MENTION_IN_TEXT = /<@uid:([a-z0-9_-]{1,100})>/gi;

const tagsSchema = z.array(z.string().trim().min(1, 'a tag is 1–100 characters').max(100, 'a tag is 1–100 characters')).max(25, 'at most 25 tags');
const messageIdSchema = z.union([z.string(), z.number()]).transform((v) => String(v)).pipe(z.string().regex(/^[1-9][0-9]{0,18}$/, 'a message id is a positive decimal'));

export const envelopeSchema = z.object({
  receiver: z.string('receiver is required').trim().min(1, 'receiver is required').max(100, 'receiver is at most 100 characters'),
  receiverType: z.enum(['user', 'group'], 'receiverType is user or group'),
  category: z.enum(['message', 'custom', 'call'], 'category is message, custom or call').optional(),
  type: z.string('type is a string').trim().min(1, 'type must not be empty').max(100).optional(),
  data: z.record(z.string(), z.unknown(), 'data must be an object'),
  tags: tagsSchema.optional(),
  muid: z.string().max(100, 'muid is at most 100 characters').optional(),
  quotedMessageId: messageIdSchema.optional(),
  mentionedUsers: z.array(z.string().trim().toLowerCase().regex(UID_PATTERN, 'a uid')).max(100).optional(),
  multipleReceivers: z.unknown().optional(),
});

const attachmentSchema = z.object({
  url: z.string().trim().min(1, 'url is required').max(2_000),
  name: z.string().max(500).optional(),
  mimeType: z.string().max(200).optional(),
  extension: z.string().max(50).optional(),
  size: z.union([z.string(), z.number()]).optional(),
});

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Refuses the request with `code`, naming the field at fault. */
export function fail(code: ErrorCode, field: string, problem: string): never {
  throw new ApiError(code, `${field}: ${problem}`, { fields: [{ field, problem }] });
}

function clientData(data: Record<string, unknown>): Record<string, unknown> {
  const own = { ...data };
  for (const key of SERVER_DATA_KEYS) delete own[key];
  return own;
}

function checkMetadata(data: Record<string, unknown>): void {
  if (data['metadata'] !== undefined && !isObject(data['metadata'])) fail('ERR_INVALID_METADATA', 'data.metadata', 'metadata must be a JSON object');
}

function checkText(data: Record<string, unknown>): void {
  const text = data['text'];
  if (text === undefined || text === '') fail('ERR_EMPTY_MESSAGE_TEXT', 'data.text', 'a text message needs text');
  if (typeof text !== 'string') fail('ERR_INVALID_MESSAGE_TEXT', 'data.text', 'text must be a string');
  if (text.trim() === '') fail('ERR_EMPTY_MESSAGE_TEXT', 'data.text', 'a text message needs text');
}

function checkMedia(data: Record<string, unknown>): void {
  const { url, attachments } = data;
  if (url === undefined && attachments === undefined) fail('ERR_EMPTY_MESSAGE_FILE', 'data.attachments', 'a media message needs data.url or data.attachments');
  if (url !== undefined && (typeof url !== 'string' || url.trim() === '')) fail('ERR_INVALID_MEDIA_MESSAGE', 'data.url', 'url must be a non-empty string');
  if (attachments !== undefined) {
    const parsed = z.array(attachmentSchema).min(1).max(10).safeParse(attachments);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      fail('ERR_INVALID_MEDIA_MESSAGE', ['data.attachments', ...(issue?.path ?? []).map(String)].join('.'), issue?.message ?? 'invalid attachments');
    }
  }
  if (data['text'] !== undefined && typeof data['text'] !== 'string') fail('ERR_INVALID_MESSAGE_TEXT', 'data.text', 'text must be a string');
}

function checkCustom(data: Record<string, unknown>): void {
  const custom = data['customData'];
  if (custom === undefined) fail('ERR_EMPTY_CUSTOM_DATA', 'data.customData', 'a custom message needs customData');
  if (!isObject(custom)) fail('ERR_INVALID_CUSTOM_DATA', 'data.customData', 'customData must be a JSON object');
}

const transcriptionSchema = z.object({
  tid: z.string().trim().min(1).max(200),
  startTime: z.number().int().nonnegative(),
  endTime: z.number().int().nonnegative(),
  transcriptUrl: z.url({ protocol: /^https?$/ }).max(3000),
});

/**
 * A call message (`category: "call"`, type audio or video): what happened (`data.action`) in which call
 * (`data.sessionId`), optionally its mode and, once it exists, its transcriptions and whether it was
 * recorded; the calls service folds them into call records (docs/behaviour/calls.md, ADR 0064).
 */
const callDataSchema = z.object({
  action: z.enum(callActions),
  sessionId: z.string().trim().min(1).max(200),
  mode: z.enum(callModes).optional(),
  transcriptions: z.array(transcriptionSchema).max(100).optional(),
  hasRecording: z.boolean().optional(),
});

function checkCall(data: Record<string, unknown>, type: string): void {
  if (type !== 'audio' && type !== 'video') fail('ERR_INVALID_MESSAGE_TYPE', 'type', 'a call message has type audio or video');
  const parsed = callDataSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    fail('ERR_INVALID_MESSAGE_DATA', ['data', ...(issue?.path ?? []).map(String)].join('.'), issue?.message ?? 'invalid call data');
  }
}

/** A send as the body gives it; the sender and thread come from the path or `onBehalfOf`. */
export type ParsedSend = Omit<SendInput, 'sender' | 'parentId'>;

/** The body of a send (plain, thread or bot), checked in CometChat's order with its error codes. */
export function parseSendBody(body: unknown): ParsedSend {
  if (!isObject(body)) fail('ERR_INVALID_MESSAGE_DATA', '(body)', 'the body must be a JSON object');
  if (JSON.stringify(body).length > MAX_MESSAGE_CHARS) {
    throw new ApiError('ERR_PAYLOAD_TOO_LARGE', `A message is at most ${MAX_MESSAGE_CHARS} characters of JSON.`);
  }
  const input = parseWith(envelopeSchema, body, {
    receiver: 'ERR_EMPTY_RECEIVER',
    receiverType: 'ERR_INVALID_RECEIVER_TYPE',
    category: 'ERR_INVALID_MESSAGE_CATEGORY',
    type: 'ERR_INVALID_MESSAGE_TYPE',
    data: 'ERR_INVALID_MESSAGE_DATA',
    quotedMessageId: 'ERR_INVALID_MESSAGE_ID',
  });
  if (input.multipleReceivers !== undefined) {
    fail('ERR_BAD_REQUEST', 'multipleReceivers', 'sending to multiple receivers in one request is not supported; send once per receiver');
  }
  const category = input.category ?? 'message';
  const type = input.type ?? (category === 'message' ? 'text' : undefined);
  if (type === undefined) fail('ERR_EMPTY_MESSAGE_TYPE', 'type', 'a custom message needs a type');
  const data = clientData(input.data);
  checkMetadata(data);
  if (category === 'message') {
    if (!(MESSAGE_TYPES as readonly string[]).includes(type)) {
      fail('ERR_INVALID_MESSAGE_TYPE', 'type', `a message of category "message" has type ${MESSAGE_TYPES.join(', ')}`);
    }
    if (type === 'text') checkText(data);
    else checkMedia(data);
  } else if (category === 'call') {
    checkCall(data, type);
  } else {
    checkCustom(data);
  }
  const text = typeof data['text'] === 'string' ? data['text'] : '';
  const inText = [...text.matchAll(MENTION_IN_TEXT)].map((m) => (m[1] ?? '').toLowerCase());
  const mentionedUids = [...new Set([...(input.mentionedUsers ?? []), ...inText])].slice(0, 100);
  return {
    receiver: input.receiver.toLowerCase(),
    receiverType: input.receiverType,
    category,
    type,
    data,
    ...(input.tags !== undefined ? { tags: input.tags } : {}),
    ...(input.muid !== undefined ? { muid: input.muid } : {}),
    ...(input.quotedMessageId !== undefined ? { quotedMessageId: input.quotedMessageId } : {}),
    mentionedUids,
  };
}

export const editSchema = z.object({
  data: z.record(z.string(), z.unknown(), 'data must be an object').optional(),
  tags: tagsSchema.optional(),
});

/** An edit replaces `text`, `metadata`, `customData`, `attachments`… of `data` and/or the tags. */
export function parseEditBody(body: unknown): { data: Record<string, unknown>; tags?: string[] } {
  if (!isObject(body)) fail('ERR_INVALID_MESSAGE_DATA', '(body)', 'the body must be a JSON object');
  if (JSON.stringify(body).length > MAX_MESSAGE_CHARS) {
    throw new ApiError('ERR_PAYLOAD_TOO_LARGE', `A message is at most ${MAX_MESSAGE_CHARS} characters of JSON.`);
  }
  const input = parseWith(editSchema, body, { data: 'ERR_INVALID_MESSAGE_DATA' });
  if (input.data === undefined && input.tags === undefined) fail('ERR_INVALID_MESSAGE_DATA', 'data', 'give data and/or tags to change');
  const data = clientData(input.data ?? {});
  checkMetadata(data);
  if (data['text'] !== undefined) checkText(data);
  if (data['customData'] !== undefined) checkCustom(data);
  return { data, ...(input.tags !== undefined ? { tags: input.tags } : {}) };
}

export const deleteSchema = z.object({ permanent: z.boolean('permanent is true or false').optional() });

/** A path message id that cannot be valid cannot exist either: answer as for an unknown message. */
export function pathMessageId(raw: string | undefined): string {
  const id = raw ?? '';
  if (!/^[1-9][0-9]{0,18}$/.test(id)) throw new ApiError('ERR_MESSAGE_ID_NOT_FOUND', `The message ${id} does not exist.`);
  return id;
}

export function pathReaction(raw: string | undefined): string {
  const reaction = (raw ?? '').trim();
  if (reaction.length === 0 || reaction.length > 100) fail('ERR_INVALID_REACTION', 'reaction', 'a reaction is 1–100 characters');
  return reaction;
}

// Query strings: booleans as true/false/1/0, lists comma-separated or repeated (style=form, explode=false).
const flag = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'], 'true or false')])
  .transform((v) => v === true || v === 'true' || v === '1')
  .optional();
const list = z
  .union([z.string(), z.array(z.string())], 'a list')
  .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s.length > 0))
  .pipe(z.array(z.string().max(100)).max(100))
  .optional();
const count = (max: number) => z.coerce.number('a number').int('an integer').min(1, 'at least 1').max(max, `at most ${max}`);
const timestamp = z.coerce.number('a number').int('an integer').min(0).optional();
const uidParam = z.string().trim().toLowerCase().max(100).optional();
/** A list whose items are one of `values`. */
const listOf = (values: readonly [string, ...string[]]) =>
  list.pipe(z.array(z.enum(values, `each one of ${values.join(', ')}`)).optional());
const MESSAGE_CATEGORIES = ['message', 'action', 'custom', 'call'] as const;
const uidList = list.pipe(z.array(z.string().toLowerCase().regex(UID_PATTERN, 'a list of uids')).optional());

/**
 * The filters every message list takes (the catalogue's parameters of the three lists). A filter
 * that needs a viewer (`unread`, `myMentionsOnly`, …) is refused without `onBehalfOf` rather than
 * ignored; see `viewerFilters`.
 */
const messageFilterFields = {
  sender: uidParam,
  category: z.enum(MESSAGE_CATEGORIES, `one of ${MESSAGE_CATEGORIES.join(', ')}`).optional(),
  categories: listOf(MESSAGE_CATEGORIES),
  type: z.string().max(100).optional(),
  types: list,
  tags: list,
  withTags: flag,
  hideDeleted: flag,
  onlyDeleted: flag,
  hideReplies: flag,
  hasReactions: flag,
  hasMentions: flag,
  /** The SDKs' `setMentionedUIDs`: messages that mention any of these users (the catalogue types it boolean by mistake). */
  mentionedUids: uidList,
  myMentionsOnly: flag,
  mentionsWithTagInfo: flag,
  mentionsWithBlockedInfo: flag,
  hasAttachments: flag,
  attachmentTypes: listOf(MEDIA_TYPES),
  hasLinks: flag,
  hideMessagesFromBlockedUsers: flag,
  unread: flag,
  undelivered: flag,
  count: flag,
  searchKey: z.string().max(200).optional(),
  fromTimestamp: timestamp,
  toTimestamp: timestamp,
  affix: z.enum(['append', 'prepend'], 'append or prepend').optional(),
  id: messageIdSchema.optional(),
  sentAt: timestamp,
  limit: count(1000).optional(),
};

/** Ours (ADR 0033): a conversation's list as of a consistency token or an epoch time. */
const asOfField = { asOf: z.string().max(8_192).describe(AS_OF_DESCRIPTION).optional() };

/** A conversation's own list: the conversation comes from the path, so it cannot be narrowed to another. */
export const conversationMessagesSchema = z.object({ ...messageFilterFields, ...asOfField });

/** `GET /users/{uid}/messages` is also page-numbered (`meta.pagination`). */
export const userMessagesSchema = z.object({
  ...messageFilterFields,
  ...asOfField,
  perPage: count(1000).optional(),
  page: count(1_000_000).optional(),
  cursor: cursorParameter,
});

/** `GET /messages` spans conversations, so it also narrows by conversation and receiver. */
export const allMessagesSchema = z.object({
  ...messageFilterFields,
  receiver: uidParam,
  receiverType: z.enum(['user', 'group'], 'user or group').optional(),
  conversationId: z.string().max(250).optional(),
});

/** Any message list's parsed filters; fields another list does not take are simply absent. */
export type MessageFilters = z.infer<typeof conversationMessagesSchema> &
  Partial<z.infer<typeof userMessagesSchema> & z.infer<typeof allMessagesSchema>>;

export const threadPageSchema = z.object({ perPage: count(1000).default(100), page: count(1_000_000).default(1), cursor: cursorParameter });

