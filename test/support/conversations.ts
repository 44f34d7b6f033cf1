import { randomUUID } from 'node:crypto';
import { eventEnvelopeSchema, parseKnownEvent, topics } from '@chat/contracts';
import { Kafka, logLevel } from 'kafkajs';
import type { Producer } from 'kafkajs';
import { inject } from 'vitest';
import { eventually } from './api.js';
import type { ApiResponse, TestApp } from './api.js';

/*
 * TEST-ONLY EVENT INJECTION — replace with API calls once the groups, users and messages work is merged.
 *
 * The conversation read model consumes group events (create, join, leave, kick, ban, delete), user
 * updates and message edits/deletes that the services on this branch cannot produce yet. These helpers
 * append real envelopes, valid per the published schemas, to the same topics with the same keys and
 * stream ids those services will use. Each one names the API call that replaces it.
 */

let producer: Producer | null = null;
const versions = new Map<string, number>();
/** Injected message ids: far above the messages service's own counter, still growing. */
let nextMessageId = 900_000;

async function connected(): Promise<Producer> {
  if (!producer) {
    const kafka = new Kafka({ clientId: 'e2e-injector', brokers: inject('kafkaBrokers').split(','), logLevel: logLevel.NOTHING });
    producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
  }
  return producer;
}

export async function closeInjector(): Promise<void> {
  await producer?.disconnect();
  producer = null;
}

/**
 * Appends one event as its owning service would publish it. `firstVersion` starts a stream this
 * helper shares with a real service above that service's own versions.
 */
export async function injectEvent(
  topic: string,
  appId: string,
  streamId: string,
  type: string,
  data: Record<string, unknown>,
  firstVersion = 1,
): Promise<Record<string, unknown>> {
  const version = Math.max((versions.get(streamId) ?? 0) + 1, firstVersion);
  versions.set(streamId, version);
  const envelope = eventEnvelopeSchema.parse({
    id: randomUUID(),
    type,
    schemaVersion: 1,
    appId,
    streamId,
    version,
    occurredAt: new Date().toISOString(),
    actor: { keyId: 'e2e-injector', scope: 'fullAccess' },
    correlationId: randomUUID(),
    causationId: null,
    data,
  });
  if (!parseKnownEvent(envelope)) throw new Error(`injected ${type} does not match its published schema: ${JSON.stringify(data)}`);
  await (await connected()).send({
    topic,
    acks: -1,
    messages: [{ key: streamId, value: JSON.stringify(envelope), headers: { type, appId, schemaVersion: '1' } }],
  });
  return envelope;
}

const now = () => Math.floor(Date.now() / 1000);
const groupStream = (app: TestApp, guid: string) => `group:${app.appId}:${guid}`;
const group = (app: TestApp, guid: string, type: string, data: Record<string, unknown>) =>
  injectEvent(topics.conversations, app.appId, groupStream(app, guid), type, { guid, ...data });

/** Replace with `POST /v3/groups` (owner plus members). Waits until the owner's group conversation is readable. */
export async function createGroup(app: TestApp, guid: string, owner: string, participants: string[] = [], name = guid): Promise<void> {
  await group(app, guid, 'GroupCreated', { name, type: 'public', owner, tags: [], createdAt: now(), createdBy: owner });
  await group(app, guid, 'GroupMembersAdded', {
    members: [{ uid: owner, scope: 'admin' }, ...participants.map((uid) => ({ uid, scope: 'participant' }))],
    addedAt: now(),
  });
  const readable = await eventually(
    () => app.call('GET', `/v3/groups/${guid}/conversation`, { onBehalfOf: owner }),
    (r) => r.status === 200,
  );
  if (readable.status !== 200) throw new Error(`group ${guid} never became readable: ${JSON.stringify(readable.body)}`);
}

/** Replace with `PUT /v3/groups/{guid}` (here: tags). */
export function updateGroupTags(app: TestApp, guid: string, tags: string[]) {
  return group(app, guid, 'GroupUpdated', { changes: { tags }, removed: [], updatedAt: now() });
}

/** Replace with `DELETE /v3/groups/{guid}`. */
export function deleteGroup(app: TestApp, guid: string) {
  return group(app, guid, 'GroupDeleted', { deletedAt: now() });
}

/** Replace with `POST /v3/groups/{guid}/members` as the user (join). */
export function joinGroup(app: TestApp, guid: string, uid: string) {
  return group(app, guid, 'GroupMemberJoined', { uid, scope: 'participant', joinedAt: now() });
}

/** Replace with leaving, `DELETE /v3/groups/{guid}/members/{uid}` (kick) and `POST /v3/groups/{guid}/bannedusers/{uid}` (ban). */
export function removeFromGroup(app: TestApp, guid: string, uid: string, how: 'left' | 'kicked' | 'banned') {
  if (how === 'left') return group(app, guid, 'GroupMemberLeft', { uid, leftAt: now() });
  if (how === 'kicked') return group(app, guid, 'GroupMemberKicked', { uid, kickedAt: now() });
  return group(app, guid, 'GroupMemberBanned', { uid, bannedAt: now() });
}

/** Replace with `POST /v3/messages` (`receiverType: group`). Returns the message id. */
export async function sendGroupMessage(app: TestApp, guid: string, sender: string, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  nextMessageId += 1;
  const id = String(nextMessageId);
  const conversationId = `group_${guid}`;
  await injectEvent(topics.messages, app.appId, `messages:${app.appId}:${conversationId}`, 'MessageSent', {
    id,
    conversationId,
    sender,
    receiver: guid,
    receiverType: 'group',
    category: 'message',
    type: 'text',
    data: { text },
    sentAt: now(),
    ...extra,
  });
  return id;
}

/**
 * Replace with `DELETE /v3/messages/{id}`. `firstVersion` keeps it above the real stream's versions
 * when the conversation's messages came from the messages service (inject only after its last send).
 */
export function deleteMessage(app: TestApp, conversationId: string, id: string, sender: string, permanent: boolean, firstVersion = 1) {
  return injectEvent(
    topics.messages,
    app.appId,
    `messages:${app.appId}:${conversationId}`,
    'MessageDeleted',
    { id, conversationId, sender, permanent, deletedAt: now() },
    firstVersion,
  );
}

/** Replace with `PUT /v3/messages/{id}`. */
export function editMessage(app: TestApp, conversationId: string, id: string, text: string, firstVersion = 1) {
  return injectEvent(
    topics.messages,
    app.appId,
    `messages:${app.appId}:${conversationId}`,
    'MessageEdited',
    { id, conversationId, data: { text }, editedAt: now() },
    firstVersion,
  );
}

/** Replace with `PUT /v3/users/{uid}`. Versions start above the users service's own on the user's stream. */
export function updateUser(app: TestApp, uid: string, changes: Record<string, unknown>) {
  return injectEvent(topics.users, app.appId, `user:${app.appId}:${uid}`, 'UserUpdated', { uid, changes, removed: [], updatedAt: now() }, 1000);
}

/** Replace with `DELETE /v3/users` (deactivate). */
export function deactivateUser(app: TestApp, uid: string) {
  return injectEvent(topics.users, app.appId, `user:${app.appId}:${uid}`, 'UserDeactivated', { uid, deactivatedAt: now() }, 1000);
}

/** Polls a call until the check passes; fails the test with the last answer otherwise. */
export async function until(read: () => Promise<ApiResponse>, check: (response: ApiResponse) => boolean): Promise<ApiResponse> {
  const response = await eventually(read, check, 15_000);
  if (!check(response)) throw new Error(`condition never held; last answer ${response.status} ${JSON.stringify(response.body)}`);
  return response;
}
