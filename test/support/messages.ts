import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import type { Producer } from 'kafkajs';
import { inject } from 'vitest';
import type { ApiResponse, TestApp } from './api.js';
import { eventually } from './api.js';

/*
 * ─── TEST-ONLY EVENT INJECTION ────────────────────────────────────────────────────────────────────
 * The groups API (conversations service) and the block/deactivate API (users service) are built on
 * other branches. Until they are merged, these helpers append the events those services will
 * publish — real envelopes, valid per packages/contracts/src/events/{groups,users}.ts — straight to
 * their Kafka topics, exactly as the services' producers do (key = stream id, same headers).
 * AFTER THE MERGE: replace every `InjectedEvents` call with the real API call (POST /groups,
 * /groups/{guid}/members, /users/{uid}/blockedusers, PUT /users/{uid} …) and delete this section.
 * ──────────────────────────────────────────────────────────────────────────────────────────────────
 */

let producer: Producer | null = null;

async function producerOnce(): Promise<Producer> {
  if (producer) return producer;
  const kafka = new Kafka({ clientId: 'e2e-injector', brokers: inject('kafkaBrokers').split(','), logLevel: logLevel.NOTHING });
  const created = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await created.connect();
  producer = created;
  return created;
}

export async function closeInjector(): Promise<void> {
  await producer?.disconnect();
  producer = null;
}

export interface InjectedEnvelope {
  id: string;
  type: string;
  schemaVersion: number;
  appId: string;
  streamId: string;
  version: number;
  occurredAt: string;
  actor: { uid?: string; keyId: string; scope: string };
  correlationId: string;
  causationId: null;
  data: Record<string, unknown>;
}

const now = () => Math.floor(Date.now() / 1000);

/** TEST-ONLY: publishes other services' events for one app, numbering each stream's versions. */
export class InjectedEvents {
  private readonly versions = new Map<string, number>();

  constructor(private readonly app: TestApp) {}

  /** Sends envelopes as they are (also to re-send one, as a Kafka redelivery would). */
  async publish(topic: string, envelopes: readonly InjectedEnvelope[]): Promise<void> {
    const p = await producerOnce();
    await p.send({
      topic,
      acks: -1,
      messages: envelopes.map((e) => ({
        key: e.streamId,
        value: JSON.stringify(e),
        headers: { type: e.type, appId: e.appId, schemaVersion: String(e.schemaVersion) },
      })),
    });
  }

  private envelope(streamId: string, type: string, data: Record<string, unknown>, actorUid?: string): InjectedEnvelope {
    const version = (this.versions.get(streamId) ?? 0) + 1;
    this.versions.set(streamId, version);
    return {
      id: randomUUID(),
      type,
      schemaVersion: 1,
      appId: this.app.appId,
      streamId,
      version,
      occurredAt: new Date().toISOString(),
      actor: { ...(actorUid ? { uid: actorUid } : {}), keyId: 'e2e-injector', scope: 'fullAccess' },
      correlationId: randomUUID(),
      causationId: null,
      data,
    };
  }

  private async group(guid: string, type: string, data: Record<string, unknown>, actorUid?: string): Promise<InjectedEnvelope> {
    const envelope = this.envelope(`group:${this.app.appId}:${guid}`, type, { guid, ...data }, actorUid);
    await this.publish('chat.conversations.events', [envelope]);
    return envelope;
  }

  /** GroupCreated, then the owner added as admin (as the groups service records a creation). */
  async createGroup(guid: string, owner: string, name = guid, type: 'public' | 'private' | 'password' = 'public') {
    await this.group(guid, 'GroupCreated', { name, type, owner, tags: [], createdBy: owner, createdAt: now() }, owner);
    return this.group(guid, 'GroupMembersAdded', { members: [{ uid: owner, scope: 'admin' }], addedAt: now() }, owner);
  }

  join(guid: string, uid: string, scope: 'participant' | 'moderator' | 'admin' = 'participant') {
    return this.group(guid, 'GroupMemberJoined', { uid, scope, joinedAt: now() }, uid);
  }

  add(guid: string, members: { uid: string; scope: 'participant' | 'moderator' | 'admin' }[], addedBy?: string) {
    return this.group(guid, 'GroupMembersAdded', { members, ...(addedBy ? { addedBy } : {}), addedAt: now() }, addedBy);
  }

  leave(guid: string, uid: string) {
    return this.group(guid, 'GroupMemberLeft', { uid, leftAt: now() }, uid);
  }

  kick(guid: string, uid: string, kickedBy?: string) {
    return this.group(guid, 'GroupMemberKicked', { uid, ...(kickedBy ? { kickedBy } : {}), kickedAt: now() }, kickedBy);
  }

  ban(guid: string, uid: string, bannedBy?: string) {
    return this.group(guid, 'GroupMemberBanned', { uid, ...(bannedBy ? { bannedBy } : {}), bannedAt: now() }, bannedBy);
  }

  unban(guid: string, uid: string, unbannedBy?: string) {
    return this.group(guid, 'GroupMemberUnbanned', { uid, ...(unbannedBy ? { unbannedBy } : {}), unbannedAt: now() }, unbannedBy);
  }

  changeScope(guid: string, uid: string, scope: string, previousScope: string, changedBy?: string) {
    return this.group(guid, 'GroupMemberScopeChanged', { uid, scope, previousScope, ...(changedBy ? { changedBy } : {}), changedAt: now() }, changedBy);
  }

  updateGroup(guid: string, changes: Record<string, unknown>, updatedBy?: string) {
    return this.group(guid, 'GroupUpdated', { changes, removed: [], ...(updatedBy ? { updatedBy } : {}), updatedAt: now() }, updatedBy);
  }

  deleteGroup(guid: string) {
    return this.group(guid, 'GroupDeleted', { deletedAt: now() });
  }

  /** UsersBlocked on a block-list stream of its own, so it never collides with the user's stream. */
  async block(uid: string, blockedUids: string[]) {
    const envelope = this.envelope(`blocks:${this.app.appId}:${uid}`, 'UsersBlocked', { uid, blockedUids, blockedAt: now() }, uid);
    await this.publish('chat.users.events', [envelope]);
  }

  async unblock(uid: string, unblockedUids: string[]) {
    const envelope = this.envelope(`blocks:${this.app.appId}:${uid}`, 'UsersUnblocked', { uid, unblockedUids, unblockedAt: now() }, uid);
    await this.publish('chat.users.events', [envelope]);
  }

  /** Deactivation on a stream of its own (the real one continues the user's stream). */
  async deactivate(uid: string) {
    const envelope = this.envelope(`user-status:${this.app.appId}:${uid}`, 'UserDeactivated', { uid, deactivatedAt: now() });
    await this.publish('chat.users.events', [envelope]);
  }

  async deleteUser(uid: string, permanent: boolean) {
    const envelope = this.envelope(`user-status:${this.app.appId}:${uid}`, 'UserDeleted', { uid, permanent, deletedAt: now() });
    await this.publish('chat.users.events', [envelope]);
  }

  async reactivate(uid: string) {
    const envelope = this.envelope(`user-status:${this.app.appId}:${uid}`, 'UserReactivated', { uid, reactivatedAt: now() });
    await this.publish('chat.users.events', [envelope]);
  }
}
/* ─── END OF TEST-ONLY EVENT INJECTION ─────────────────────────────────────────────────────────── */

export function sendMessage(app: TestApp, from: string, body: Record<string, unknown>): Promise<ApiResponse> {
  return app.call('POST', '/v3/messages', { onBehalfOf: from, body });
}

export function text(receiver: string, words: string, receiverType: 'user' | 'group' = 'user', extra: Record<string, unknown> = {}) {
  return { receiver, receiverType, category: 'message', type: 'text', data: { text: words }, ...extra };
}

/** Sends until the answer is not 'not yet known' (another service's event still on its way). */
export async function sendWhenAllowed(app: TestApp, from: string, body: Record<string, unknown>): Promise<ApiResponse> {
  return eventually(
    () => sendMessage(app, from, body),
    (r) => r.status === 200,
  );
}

/** The group's messages (as the app), once `check` holds. */
export async function groupMessagesWhen(app: TestApp, guid: string, check: (messages: any[]) => boolean): Promise<any[]> {
  const response = await eventually(
    () => app.call('GET', `/v3/groups/${guid}/messages?limit=1000`),
    (r) => r.status === 200 && check(r.body.data),
  );
  return response.body.data;
}
