import type { RequestSchemas } from '@chat/contracts';
import {
  allMessagesSchema,
  callsListSchema,
  conversationMessagesSchema,
  deleteSchema,
  editSchema,
  envelopeSchema,
  messageMetricsRangeSchema,
  threadPageSchema,
  transcriptionsPageSchema,
  usageRangeSchema,
  userMessagesSchema,
} from './schemas.js';
import { interactedBodySchema, threadListSchema } from './personalRoutes.js';

/** What each operation of this service parses, for the generated OpenAPI description (npm run openapi). */
export const requestSchemas: RequestSchemas = {
  'send-message': { body: envelopeSchema },
  'send-bot-message': { body: envelopeSchema },
  'send-thread-message': { body: envelopeSchema },
  'list-all-messages': { query: allMessagesSchema },
  'user-list-group-messages': { query: conversationMessagesSchema },
  'user-list-user-messages': { query: userMessagesSchema },
  'update-message': { body: editSchema },
  'delete-message': { body: deleteSchema },
  'list-all-thread-messages': { query: threadPageSchema },
  'list-calls': { query: callsListSchema },
  'retrieve-call-transcriptions': { query: transcriptionsPageSchema },
  'usage-metrics': { query: usageRangeSchema },
  'message-receipt-metrics': { query: messageMetricsRangeSchema },
  'mark-message-as-interacted': { body: interactedBodySchema },
  'list-threads': { query: threadListSchema },
};
