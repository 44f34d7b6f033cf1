import { z } from 'zod';

/**
 * A realtime cursor: for each topic that carries cursor frames (in the server's order: messages,
 * conversations), the next Kafka offset of each partition, as one connection had consumed them after
 * a frame. Clients treat it as opaque (they store it and send it back as `since`); the server and this
 * package's comparison read it. Offsets grow per partition, so cursors are ordered component-wise: a
 * frame whose cursor is nowhere ahead of the last one handled adds nothing new (a replay).
 */
export type CursorVector = readonly (readonly number[])[];

/** The encoding's version: a server that changes the layout bumps it, and older cursors read as unknown. */
const CURSOR_VERSION = 1;

/** base64url without padding; the cap keeps a hostile `since` from costing a parse of megabytes. */
export const realtimeCursorSchema = z
  .string()
  .min(1)
  .max(16_384)
  .regex(/^[A-Za-z0-9_-]+$/, 'a realtime cursor is an opaque base64url string')
  .describe('Opaque resume position (base64url). Send the last one you received as `since` (or `Last-Event-ID` on SSE).');

/** `p`: per topic, per partition, the next offset; a partition count past Kafka's practical range is refused. */
const cursorBodySchema = z.object({ v: z.literal(CURSOR_VERSION), p: z.array(z.array(z.number().int().min(0)).max(1024)).max(16) });

export function encodeRealtimeCursor(vector: CursorVector): string {
  const text = JSON.stringify({ v: CURSOR_VERSION, p: vector });
  // JSON of topic names and integers is ASCII, so btoa (global in browsers and Node) encodes it as is.
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The vector a cursor names, or undefined when it is not one of ours (malformed, another version). */
export function decodeRealtimeCursor(cursor: string): CursorVector | undefined {
  if (!realtimeCursorSchema.safeParse(cursor).success) return undefined;
  try {
    const base64 = cursor.replace(/-/g, '+').replace(/_/g, '/');
    const parsed = cursorBodySchema.safeParse(JSON.parse(atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4))));
    return parsed.success ? parsed.data.p : undefined;
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
  if (seen.length !== next.length) return false;
  return next.every((offsets, topic) => {
    const mine = seen[topic]!;
    return mine.length === offsets.length && offsets.every((offset, partition) => offset <= mine[partition]!);
  });
}
