import { UID_PATTERN } from '@chat/contracts';
import { parseWith, pastEpochSeconds } from '@chat/http';
import { z } from 'zod';
import type { ImportedMessage } from '../../app/dataImport/messageImport.js';
import { fail, isObject, parseSendBody } from '../schemas.js';

export function importEnvelopeSchema(nowSeconds: number) {
  const at = pastEpochSeconds(nowSeconds);
  return z.object({
    muid: z.string('muid is required').trim().min(1, 'muid is required').max(100, 'muid is at most 100 characters'),
    sender: z.string('sender is required').trim().toLowerCase().regex(UID_PATTERN, 'sender must be a valid uid'),
    sentAt: at,
    deliveredAt: at.optional(),
    readAt: at.optional(),
  });
}

/**
 * One record of `POST /data_import/messages`, keyed by its `muid`; the content follows the rules of a
 * send (CometChat's categories and types, their codes), and the times must be integers not in the future.
 */
export function parseImportedMessage(key: string, record: unknown, nowSeconds: number): ImportedMessage {
  if (!isObject(record)) fail('ERR_IMPORT_INVALID_MESSAGE_FORMAT', key, 'a message record must be a JSON object');
  const envelope = parseWith(importEnvelopeSchema(nowSeconds), record);
  if (envelope.muid !== key) fail('ERR_BAD_REQUEST', 'muid', `must equal the record's key (${key})`);
  for (const later of ['deliveredAt', 'readAt'] as const) {
    const at = envelope[later];
    if (at !== undefined && at < envelope.sentAt) fail('ERR_BAD_REQUEST', later, 'must not be before sentAt');
  }
  const content = parseSendBody(record);
  return { ...content, ...envelope };
}
