import { callActions, callModes } from '@chat/contracts';
import { cursorParameter } from '@chat/http';
import { z } from 'zod';

const flag = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'], 'true or false')])
  .transform((v) => v === true || v === 'true' || v === '1')
  .optional();
const count = (max: number) => z.coerce.number('a number').int('an integer').min(1, 'at least 1').max(max, `at most ${max}`);
const timestamp = z.coerce.number('a number').int('an integer').min(0).optional();
const uidParam = z.string().trim().toLowerCase().max(100).optional();

/** `GET /calls`: the catalogue's filters, and CometChat's page parameters. */
export const callsListSchema = z.object({
  type: z.enum(['audio', 'video']).optional(),
  mode: z.enum(callModes).optional(),
  participantsCount: z.coerce.number('a number').int('an integer').min(0).optional(),
  startedAt: timestamp,
  status: z.enum(callActions).optional(),
  receiverType: z.enum(['user', 'group']).optional(),
  endedAt: timestamp,
  hasRecording: flag,
  hasTranscription: flag,
  uid: uidParam,
  page: count(1_000_000).default(1),
  perPage: count(1000).default(100),
  cursor: cursorParameter,
});

/** `GET /calls/{sessionId}/transcriptions`. */
export const transcriptionsPageSchema = z.object({ page: count(1_000_000).default(1), perPage: count(1000).default(100), cursor: cursorParameter });

/** `callUsagePath`'s range, in epoch seconds (the messages service has already read the caller's units). */
export const callUsageRangeSchema = z
  .object({ from: z.coerce.number().int().min(0), to: z.coerce.number().int().min(0) })
  .refine((q) => q.from <= q.to, { path: ['to'], message: 'must not be before from' });
