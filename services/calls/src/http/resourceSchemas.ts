import { z } from 'zod';

/*
 * The resources this service answers with, as its views render them (domain/callRecord.ts): the
 * response side of the OpenAPI description (openapi.ts). Loose objects: the fields a view always
 * writes are required, the rest typed.
 */

const epoch = z.number().int();

/** `callView`: one call folded from its call messages. */
export const callResource = z.looseObject({
  sessionId: z.string(),
  totalAudioMinutes: z.number(),
  totalVideoMinutes: z.number(),
  hasRecording: z.boolean(),
  hasTranscription: z.boolean(),
  initiatedAt: epoch,
  initiator: z.string(),
  mode: z.string(),
  receiver: z.string(),
  receiverType: z.enum(['user', 'group']),
});

/** `transcriptionView`: one transcription of a call (its room is the call's session id). */
export const transcriptionResource = z.looseObject({ roomName: z.string(), tid: z.string(), transcriptUrl: z.string() });
