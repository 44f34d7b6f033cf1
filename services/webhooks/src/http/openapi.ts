import type { RequestSchemas } from '@chat/contracts';
import { bulkBody, listQuery } from './routes.js';

/** What each operation of this service parses, for the generated OpenAPI description (npm run openapi). */
export const requestSchemas: RequestSchemas = {
  'list-webhook-deliveries': { query: listQuery },
  'redeliver-webhook-deliveries': { body: bulkBody },
};
