import { dataOf, listOf } from '@chat/contracts';
import type { RequestSchemas, ResponseSchemas } from '@chat/contracts';
import { callResource, transcriptionResource } from './resourceSchemas.js';
import { callsListSchema, transcriptionsPageSchema } from './schemas.js';

/** What each operation of this service parses, for the generated OpenAPI description (npm run openapi). */
export const requestSchemas: RequestSchemas = {
  'list-calls': { query: callsListSchema },
  'retrieve-call-transcriptions': { query: transcriptionsPageSchema },
};

/** What each operation of this service answers (beyond the codes `commonErrors` gives every operation). */
export const responseSchemas: ResponseSchemas = {
  'list-calls': { body: listOf(callResource) },
  'retrieve-call-details': { body: dataOf(callResource), errors: ['ERR_CALL_NOT_FOUND'] },
  'retrieve-call-transcriptions': { body: listOf(transcriptionResource), errors: ['ERR_CALL_NOT_FOUND'] },
};
