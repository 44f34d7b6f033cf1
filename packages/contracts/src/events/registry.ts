import type { z } from 'zod';
import { conversationEventSchemas } from './conversations.js';
import { groupEventSchemas } from './groups.js';
import { managementEventSchemas } from './management.js';
import { messageEventSchemas } from './messages.js';
import { notificationEventSchemas } from './notifications.js';
import { personalMessageEventSchemas } from './personalMessages.js';
import { messageModerationEventSchemas, moderationSettingsEventSchemas } from './moderation.js';
import { userEventSchemas } from './users.js';
import { webhookDeliveryEventSchemas } from './webhooks.js';
import type { EventEnvelope } from '../envelope.js';
import { topics } from '../topics.js';
import type { Topic } from '../topics.js';

/** Every published event type, by name and schema version. Published shapes never change in place. */
export const eventCatalog = {
  ...userEventSchemas,
  ...messageEventSchemas,
  ...messageModerationEventSchemas,
  ...moderationSettingsEventSchemas,
  ...personalMessageEventSchemas,
  ...conversationEventSchemas,
  ...groupEventSchemas,
  ...managementEventSchemas,
  ...webhookDeliveryEventSchemas,
  ...notificationEventSchemas,
} as const;

/**
 * Event types no longer published, and why. Their schemas stay in the catalogue: events already on a
 * topic still decode, and a consumer may meet them when it reads from the topic's start.
 */
export const retiredEventTypes: Readonly<Partial<Record<EventType, string>>> = {
  NotificationQueued: 'No longer published (ADR 0043): the notifications service keeps a pending notification in its own store, not as a stream per recipient; GET /notifications/v1/logs shows every decision and provider call.',
  NotificationSkipped: 'No longer published (ADR 0043): a decision not to notify is an entry of GET /notifications/v1/logs only.',
  NotificationAttempted: 'No longer published (ADR 0043): a provider call is an entry of GET /notifications/v1/logs only.',
};

/** Which topic carries each event type: a service publishes only on its own topic. */
const eventTypesByTopic: ReadonlyArray<readonly [Topic, Record<string, unknown>]> = [
  [topics.users, userEventSchemas],
  [topics.messages, { ...messageEventSchemas, ...messageModerationEventSchemas, ...moderationSettingsEventSchemas, ...personalMessageEventSchemas }],
  [topics.conversations, { ...conversationEventSchemas, ...groupEventSchemas }],
  [topics.management, managementEventSchemas],
  [topics.webhooks, webhookDeliveryEventSchemas],
  [topics.notifications, notificationEventSchemas],
];

export function topicOf(type: EventType): Topic {
  const found = eventTypesByTopic.find(([, schemas]) => Object.hasOwn(schemas, type));
  if (!found) throw new Error(`event type ${type} has no topic`);
  return found[0];
}

type Catalog = typeof eventCatalog;
export type EventType = keyof Catalog;
type LatestVersion<T extends EventType> = Catalog[T] extends { 1: infer S } ? S : never;
export type EventData<T extends EventType> = LatestVersion<T> extends z.ZodType<infer D> ? D : never;

/** The version producers write today. Bump it (and add an upcaster) when a shape changes. */
export const currentSchemaVersion = 1;

export type KnownEvent = { [T in EventType]: EventEnvelope<T, EventData<T>> }[EventType];

/** The envelopes of a family of types: `EventOf<(typeof groupBanEventTypes)[number]>`. */
export type EventOf<T extends EventType> = Extract<KnownEvent, { type: T }>;

/** A test of an envelope's type against a family of types (e.g. `userLifecycleEventTypes`), built once. */
export function eventTypeIn(types: readonly EventType[]): (event: { type: string }) => boolean {
  const set = new Set<string>(types);
  return (event) => set.has(event.type);
}

export function isKnownEventType(type: string): type is EventType {
  return Object.hasOwn(eventCatalog, type);
}

/**
 * Validates an envelope's payload against its registered schema. Unknown types and versions
 * return null so a consumer can skip (or dead-letter) what it does not understand.
 */
export function parseKnownEvent(envelope: EventEnvelope): KnownEvent | null {
  if (!isKnownEventType(envelope.type)) return null;
  const versions: Record<number, z.ZodType> = eventCatalog[envelope.type];
  const schema = versions[envelope.schemaVersion];
  if (!schema) return null;
  const parsed = schema.safeParse(envelope.data);
  if (!parsed.success) return null;
  return { ...envelope, data: parsed.data } as KnownEvent;
}
