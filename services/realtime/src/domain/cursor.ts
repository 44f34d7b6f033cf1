import { decodeRealtimeCursor, encodeRealtimeCursor, topics } from '@chat/contracts';
import type { CursorVector } from '@chat/contracts';

export type { CursorVector };

/**
 * The topics whose records carry cursor frames, in the order a cursor lists them (ADR 0069). The
 * users topic closes connections and carries no frame a client resumes.
 */
export const cursorTopics = [topics.messages, topics.conversations] as const;
export type CursorTopic = (typeof cursorTopics)[number];

/** The wire form is the published codec's (`@chat/contracts`), which clients compare too. */
export function encodeCursor(vector: CursorVector): string {
  return encodeRealtimeCursor(vector);
}

/** The vector a cursor names, or null for anything that is not a cursor of this server's topics. */
export function decodeCursor(cursor: string): CursorVector | null {
  const vector = decodeRealtimeCursor(cursor);
  return vector !== undefined && vector.length === cursorTopics.length ? vector : null;
}

export function topicIndex(topic: string): number {
  return (cursorTopics as readonly string[]).indexOf(topic);
}

/** Each partition's larger offset of the two (same layout; the caller checked it). */
export function maxVector(a: CursorVector, b: CursorVector): number[][] {
  return a.map((offsets, t) => offsets.map((offset, p) => Math.max(offset, b[t]?.[p] ?? 0)));
}

/** Whether `a` is at or past `b` in every partition. */
export function covers(a: CursorVector, b: CursorVector): boolean {
  return b.every((offsets, t) => offsets.every((offset, p) => (a[t]?.[p] ?? 0) >= offset));
}

/** Same topics with the same partition counts (a cursor from another layout cannot be resumed). */
export function sameLayout(a: CursorVector, b: CursorVector): boolean {
  return a.length === b.length && a.every((offsets, t) => offsets.length === b[t]?.length);
}
