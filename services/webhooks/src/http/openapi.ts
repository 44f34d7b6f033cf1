import { dataOf, listMetaShape } from '@chat/contracts';
import type { ErrorCode, RequestSchemas, ResponseSchemas } from '@chat/contracts';
import { z } from 'zod';
import { deliveryResource } from './resourceSchemas.js';
import { bulkBody, listQuery } from './routes.js';

/** What each operation of this service parses, for the generated OpenAPI description (npm run openapi). */
export const requestSchemas: RequestSchemas = {
  'list-webhook-deliveries': { query: listQuery },
  'redeliver-webhook-deliveries': { body: bulkBody },
};

const WEBHOOK: ErrorCode[] = ['ERR_APP_NOT_FOUND', 'ERR_WEBHOOK_NOT_FOUND'];

/** What each operation of this process answers (beyond the codes `commonErrors` gives every operation). */
export const responseSchemas: ResponseSchemas = {
  'list-webhook-deliveries': {
    body: z.object({ data: z.array(deliveryResource), meta: listMetaShape.extend({ webhook: z.looseObject({ id: z.string(), enabled: z.boolean(), triggers: z.array(z.string()) }) }) }),
    errors: WEBHOOK,
  },
  'redeliver-webhook-delivery': { body: dataOf(deliveryResource), errors: [...WEBHOOK, 'ERR_DELIVERY_NOT_FOUND'] },
  'redeliver-webhook-deliveries': { body: dataOf(z.looseObject({ success: z.literal(true), redelivered: z.number().int().min(0) })), errors: WEBHOOK },
};
