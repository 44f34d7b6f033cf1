import type { z } from 'zod';
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
