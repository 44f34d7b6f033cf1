import { z } from 'zod';

/**
 * A realtime cursor: for each topic that carries cursor frames, the next Kafka offset of each
 * partition, as one connection had consumed them after a frame. Clients treat it as opaque (they store
 * it and send it back as `since`); the server and this package's comparison read it. Offsets grow per
 * partition, so cursors are ordered component-wise: a frame whose cursor no component of the last
 * one seen is behind adds nothing new (a duplicate after a resume).
 */
export type CursorVector = Readonly<Record<string, readonly number[]>>;

/** The encoding's version: a server that changes the layout bumps it, and older cursors read as unknown. */
const CURSOR_VERSION = 1;

/** base64url without padding; the cap keeps a hostile `since` from costing a parse of megabytes. */
export const realtimeCursorSchema = z
  .string()
  .min(1)
  .max(8192)
  .regex(/^[A-Za-z0-9_-]+$/, 'a realtime cursor is an opaque base64url string')
  .describe('Opaque resume position (base64url). Send the last one you received as `since` (or `Last-Event-ID` on SSE).');

const offsetsSchema = z.array(z.number().int().min(0));
const cursorBodySchema = z.object({ v: z.literal(CURSOR_VERSION), o: z.record(z.string().min(1), offsetsSchema) });

export function encodeRealtimeCursor(vector: CursorVector): string {
  const text = JSON.stringify({ v: CURSOR_VERSION, o: vector });
  // JSON of topic names and integers is ASCII, so btoa (global in browsers and Node) encodes it as is.
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The vector a cursor names, or undefined when it is not one of ours (malformed, another version). */
export function decodeRealtimeCursor(cursor: string): CursorVector | undefined {
  if (!realtimeCursorSchema.safeParse(cursor).success) return undefined;
  try {
    const base64 = cursor.replace(/-/g, '+').replace(/_/g, '/');
    const parsed = cursorBodySchema.safeParse(JSON.parse(atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4))));
    return parsed.success ? parsed.data.o : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `seen` already covers `next`: every partition of `next` is at or behind `seen`. Vectors
 * of different shapes (another partition count, another topic) are not comparable: false, so a
 * client never drops a frame it cannot prove it has.
 */
export function cursorCovers(seen: CursorVector, next: CursorVector): boolean {
  const topics = Object.keys(next);
  if (topics.length !== Object.keys(seen).length) return false;
  for (const topic of topics) {
    const mine = seen[topic];
    const theirs = next[topic]!;
    if (mine === undefined || mine.length !== theirs.length) return false;
    if (theirs.some((offset, partition) => offset > mine[partition]!)) return false;
  }
  return true;
}
