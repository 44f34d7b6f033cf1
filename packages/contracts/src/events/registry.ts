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
import { EventSchemaRegistry } from './schemaVersions.js';
import type { Upcasters } from './schemaVersions.js';
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
/** A type's newest schema: the one under the highest version key (versions run 1, 2, … without a gap). */
type NewestOf<Versions, Seen extends unknown[] = [unknown]> = [...Seen, unknown]['length'] extends keyof Versions
  ? NewestOf<Versions, [...Seen, unknown]>
  : Seen['length'] extends keyof Versions
    ? Versions[Seen['length']]
    : never;
/** What readers see of a type: its newest shape (older stored or published ones are upcast to it). */
export type EventData<T extends EventType> = NewestOf<Catalog[T]> extends z.ZodType<infer D> ? D : never;

/**
 * How each older shape becomes the next, per event type and the version it starts from (ADR 0060).
 * Empty while every type has one version; adding version 2 of a type means adding its schema under
 * `2` in the type's file and a step from 1 here — the registry refuses to start without it.
 */
export const eventUpcasters: Upcasters = {};

/** The catalogue's registry: what producers write, and what every reader turns older shapes into. */
export const eventSchemas = new EventSchemaRegistry(eventCatalog, eventUpcasters);

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
 * Validates an envelope's payload against the schema of its version and answers it in its type's
 * newest shape. Unknown types and versions return null so a consumer can skip (or dead-letter) what
 * it does not understand.
 */
export function parseKnownEvent(envelope: EventEnvelope): KnownEvent | null {
  return eventSchemas.parse(envelope) as KnownEvent | null;
}

/**
 * A decoded record value as a known event in its type's newest version, envelope and data validated
 * in one pass; undefined when it is anything else, for `eventEnvelopeSchema` and `parseKnownEvent` to
 * judge (and say why). See `EventSchemaRegistry.parseNewestEnvelope`.
 */
export function parseNewestKnownEvent(value: unknown): KnownEvent | undefined {
  return eventSchemas.parseNewestEnvelope(value) as KnownEvent | undefined;
}
