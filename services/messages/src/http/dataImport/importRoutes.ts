import { importRecords, inCallerOrder, outcomesOf, validateRecords } from '@chat/http';
import { Router } from 'express';
import type { MessageImport } from '../../app/dataImport/messageImport.js';
import { requestContextOf } from '../requestContext.js';
import { parseImportedMessage } from './importSchemas.js';

/** `POST /data_import/messages`: per-record answers, in the caller's order. */
export function dataImportRouter(messageImport: MessageImport): Router {
  const router = Router();
  router.post('/v3/data_import/messages', async (req, res) => {
    const context = requestContextOf(req);
    const entries = importRecords(req.body, 'messages', 'ERR_IMPORT_INVALID_MESSAGE_FORMAT');
    const now = Math.floor(Date.now() / 1000);
    const { valid, refused } = validateRecords(entries, (key, record) => parseImportedMessage(key, record, now));
    const results = await messageImport.importAll(context, valid);
    res.json({ data: inCallerOrder(entries, refused, outcomesOf(results)) });
  });
  return router;
}
