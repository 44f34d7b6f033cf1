import { topics } from '@chat/contracts';
import { z } from 'zod';

/**
 * The topics whose records carry cursor frames, in the order a cursor lists them (ADR 0069). The
 * users topic closes connections and carries no frame a client resumes.
 */
export const cursorTopics = [topics.messages, topics.conversations] as const;
export type CursorTopic = (typeof cursorTopics)[number];

/** Per cursor topic (in `cursorTopics` order), per partition: the offset of the next record. */
export type CursorVector = readonly (readonly number[])[];

const CURSOR_VERSION = 1;
const cursorSchema = z.object({ v: z.literal(CURSOR_VERSION), p: z.array(z.array(z.number().int().nonnegative()).max(1024)).length(cursorTopics.length) });

/** Opaque to clients (base64url of a small JSON): the shape may change with the version. */
export function encodeCursor(vector: CursorVector): string {
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, p: vector })).toString('base64url');
}

/** The vector a cursor names, or null for anything that is not a cursor of ours. */
export function decodeCursor(cursor: string): CursorVector | null {
  if (cursor.length === 0 || cursor.length > 16_384) return null;
  try {
    const parsed = cursorSchema.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data.p : null;
  } catch {
    return null;
  }
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
