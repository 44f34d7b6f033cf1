import { z } from 'zod';
import { eventEnvelopeSchema } from '../envelope.js';
import type { EventEnvelope } from '../envelope.js';

/** Turns one event type's data of version n into its data of version n + 1. */
export type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

/** One event type's schemas by version: 1, 2, … with no gap. */
export type VersionedSchemas = Readonly<Record<number, z.ZodType>>;

/** Per event type, the upcaster from each version but the newest to the next one. */
export type Upcasters = Readonly<Record<string, Readonly<Record<number, Upcaster>>>>;

/**
 * An event type's published shapes and how an older one becomes the newest (ADR 0060). Published
 * shapes never change in place: a changed shape is a new version with an upcaster from the one before,
 * and every reader — a Kafka consumer, a command replaying its stream, a time-travel read — sees the
 * newest shape, so deciders, projections and reactors are written against one shape only.
 */
export class EventSchemaRegistry {
  private readonly newest = new Map<string, number>();
  /** Per type whose newest data schema is an object: the envelope with that data, made at first use (null: none). */
  private readonly newestEnvelopes = new Map<string, z.ZodType | null>();

  constructor(
    private readonly catalog: Readonly<Record<string, VersionedSchemas>>,
    private readonly upcasters: Upcasters,
  ) {
    for (const [type, versions] of Object.entries(catalog)) {
      const numbers = Object.keys(versions)
        .map(Number)
        .sort((a, b) => a - b);
      numbers.forEach((version, index) => {
        if (version !== index + 1) throw new Error(`event type ${type}: versions must run 1, 2, … without a gap (found ${numbers.join(', ')})`);
      });
      const newest = numbers.length;
      if (newest === 0) throw new Error(`event type ${type} has no schema`);
      for (let version = 1; version < newest; version += 1) {
        if (!upcasters[type]?.[version]) throw new Error(`event type ${type}: no upcaster from version ${version} to ${version + 1}`);
      }
      this.newest.set(type, newest);
    }
    for (const [type, steps] of Object.entries(upcasters)) {
      const newest = this.newest.get(type);
      for (const from of Object.keys(steps).map(Number)) {
        if (newest === undefined || from < 1 || from >= newest) throw new Error(`event type ${type}: an upcaster from version ${from} leads to no schema`);
      }
    }
  }

  /** The version producers write for a type: its newest (1 for a type the catalogue does not know). */
  newestVersion(type: string): number {
    return this.newest.get(type) ?? 1;
  }

  /**
   * The envelope in its type's newest shape, without validating (the event store's own commits were
   * validated when written). The same object when it already is the newest, or of a type or version
   * this build does not know (a newer producer's: readers are deployed before writers, ADR 0060).
   */
  upcast<E extends EventEnvelope>(envelope: E): E {
    const newest = this.newest.get(envelope.type);
    if (newest === undefined || envelope.schemaVersion >= newest || envelope.schemaVersion < 1) return envelope;
    let data = envelope.data;
    for (let version = envelope.schemaVersion; version < newest; version += 1) data = this.upcasters[envelope.type]![version]!(data);
    return { ...envelope, schemaVersion: newest, data };
  }

  /**
   * A decoded value (`JSON.parse`'s: plain objects only) that is an envelope of a known type in its
   * newest version, validated in one pass — envelope and data — and answered as the event; undefined
   * for anything else (another version, a type or value this pass does not cover, an invalid one),
   * which the caller sends through `eventEnvelopeSchema` and `parse`, whose answer and error say why.
   * It accepts exactly what that path accepts for such a value and answers the same event (ADR 0114):
   * the same envelope fields, and data that is a plain object the newest schema (an object schema,
   * which keeps only its own keys) accepts. A consumer decodes every record this way: one zod pass
   * and one copy instead of two and three.
   */
  parseNewestEnvelope(value: unknown): EventEnvelope | undefined {
    if (typeof value !== 'object' || value === null) return undefined;
    const { type, schemaVersion, data } = value as { type?: unknown; schemaVersion?: unknown; data?: unknown };
    if (typeof type !== 'string' || schemaVersion !== this.newest.get(type) || !isPlainObject(data)) return undefined;
    const schema = this.newestEnvelope(type);
    if (!schema) return undefined;
    const parsed = schema.safeParse(value);
    return parsed.success ? (parsed.data as EventEnvelope) : undefined;
  }

  private newestEnvelope(type: string): z.ZodType | null {
    let schema = this.newestEnvelopes.get(type);
    if (schema === undefined) {
      const data = this.catalog[type]![this.newest.get(type)!]!;
      schema = data instanceof z.ZodObject ? eventEnvelopeSchema.extend({ data }) : null;
      this.newestEnvelopes.set(type, schema);
    }
    return schema;
  }

  /**
   * Validates an envelope's data against the schema of its version and answers it in the newest shape,
   * validated again when an upcaster made it. Null for a type or version this build does not know, or
   * data that does not match, so a consumer can skip (or dead-letter) what it does not understand.
   */
  parse(envelope: EventEnvelope): EventEnvelope | null {
    const versions = Object.hasOwn(this.catalog, envelope.type) ? this.catalog[envelope.type] : undefined;
    const schema = versions?.[envelope.schemaVersion];
    if (!versions || !schema) return null;
    const parsed = schema.safeParse(envelope.data);
    if (!parsed.success) return null;
    const newest = this.newestVersion(envelope.type);
    if (envelope.schemaVersion === newest) return { ...envelope, data: parsed.data as Record<string, unknown> };
    const upcast = this.upcast({ ...envelope, data: parsed.data as Record<string, unknown> });
    const checked = versions[newest]!.safeParse(upcast.data);
    return checked.success ? { ...upcast, data: checked.data as Record<string, unknown> } : null;
  }
}

/** What `z.record` accepts as an object: one whose prototype is `Object`'s or none (`JSON.parse` makes no other). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
