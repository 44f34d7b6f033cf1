import { dataOf, listOf, outcomesByKeyShape, succeededShape } from '@chat/contracts';
import type { ErrorCode, RequestSchemas, ResponseSchemas } from '@chat/contracts';
import { z } from 'zod';
import {
  apiKeyResource,
  appResource,
  auditEntryResource,
  collaboratorResource,
  collaboratorsAnswer,
  deadLetterResource,
  partitionLagResource,
  tailedEventResource,
  tenantResource,
  triggerResource,
  webhookResource,
} from './resourceSchemas.js';
import {
  auditQuery,
  collaboratorsBody,
  createApiKeyBody,
  createAppBody,
  createWebhookBody,
  listApiKeysQuery,
  listAppsQuery,
  listWebhooksQuery,
  settingsBody,
  tenantBody,
  triggersBody,
  updateApiKeyBody,
  updateWebhookBody,
  usageBody,
} from './schemas.js';
import { opsDeadLettersQuery, opsEventsQuery, opsRedriveBody } from './ops/opsRoutes.js';

/** What each operation of this service parses, for the generated OpenAPI description (npm run openapi). */
export const requestSchemas: RequestSchemas = {
  'list-webhooks': { query: listWebhooksQuery },
  'create-webhook': { body: createWebhookBody },
  'update-webhook': { body: updateWebhookBody },
  'add-triggers': { body: triggersBody },
  'remove-triggers': { body: triggersBody },
  'create-app': { body: createAppBody },
  'list-apps': { query: listAppsQuery },
  'fetch-multi-tenant-usage': { body: usageBody },
  'add-collaborator': { body: collaboratorsBody },
  'map-settings': { body: settingsBody },
  'add-tenant': { body: tenantBody },
  'create-apikey': { body: createApiKeyBody },
  'list-apikeys': { query: listApiKeysQuery },
  'update-apikey': { body: updateApiKeyBody },
  'list-apikey-audit': { query: auditQuery },
  'management-list-apikey-audit': { query: auditQuery },
  'ops-list-events': { query: opsEventsQuery },
  'ops-list-dead-letters': { query: opsDeadLettersQuery },
  'ops-redrive-dead-letters': { body: opsRedriveBody },
};

const APP: ErrorCode[] = ['ERR_APP_NOT_FOUND'];
const WEBHOOK: ErrorCode[] = [...APP, 'ERR_WEBHOOK_NOT_FOUND'];
const KEY: ErrorCode[] = ['ERR_APIKEY_NOT_FOUND'];

/** What each operation of this service answers (beyond the codes `commonErrors` gives every operation). */
export const responseSchemas: ResponseSchemas = {
  'create-apikey': { body: dataOf(apiKeyResource), errors: ['ERR_APIKEYS_LIMIT_EXCEEDED'] },
  'list-apikeys': { body: listOf(apiKeyResource) },
  'get-apikey': { body: dataOf(apiKeyResource), errors: KEY },
  'update-apikey': { body: dataOf(apiKeyResource), errors: [...KEY, 'ERR_APIKEY_NO_SELF_ACTION'] },
  'delete-apikey': { body: succeededShape, errors: [...KEY, 'ERR_APIKEY_NO_SELF_ACTION'] },
  'list-apikey-audit': { body: listOf(auditEntryResource), errors: KEY },
  'management-list-apikey-audit': { body: listOf(auditEntryResource), errors: [...APP, ...KEY] },
  'create-app': { body: dataOf(appResource), errors: ['ERR_REGION_NOT_SERVED'] },
  'list-apps': { body: listOf(appResource) },
  'get-app': { body: dataOf(appResource), errors: APP },
  'delete-app': { body: dataOf(z.looseObject({ success: z.literal(true), scheduledToDeleteAt: z.number().int() })), errors: APP },
  'fetch-multi-tenant-usage': { body: succeededShape, errors: APP },
  'list-collaborators': { body: dataOf(z.array(collaboratorResource)), errors: APP },
  'add-collaborator': { body: dataOf(collaboratorsAnswer), errors: APP },
  'list-settings': { body: dataOf(z.record(z.string(), z.unknown())), errors: APP },
  'map-settings': { body: dataOf(outcomesByKeyShape), errors: APP },
  'unmap-settings': { body: succeededShape, errors: APP },
  'add-tenant': { body: dataOf(tenantResource), errors: ['ERR_REGION_NOT_SERVED'] },
  'list-webhooks': { body: listOf(webhookResource), errors: APP },
  'create-webhook': { body: dataOf(webhookResource), errors: [...APP, 'ERR_WEBHOOK_ALREADY_EXISTS', 'ERR_WEBHOOK_URL_NOT_ALLOWED', 'ERR_WEBHOOKS_LIMIT_EXCEEDED', 'ERR_TRIGGER_NOT_FOUND'] },
  'get-webhook': { body: dataOf(webhookResource), errors: WEBHOOK },
  'update-webhook': { body: dataOf(webhookResource), errors: [...WEBHOOK, 'ERR_WEBHOOK_URL_NOT_ALLOWED'] },
  'delete-webhook': { body: succeededShape, errors: WEBHOOK },
  'rotate-webhook-secret': { body: dataOf(z.object({ id: z.string(), signingSecret: z.string() })), errors: WEBHOOK },
  'list-triggers': { body: listOf(triggerResource), errors: WEBHOOK },
  'add-triggers': { body: dataOf(outcomesByKeyShape), errors: [...WEBHOOK, 'ERR_TRIGGER_NOT_FOUND'] },
  'remove-triggers': { body: succeededShape, errors: [...WEBHOOK, 'ERR_TRIGGER_NOT_FOUND'] },
  'ops-consumer-lag': { body: dataOf(z.array(partitionLagResource)) },
  'ops-list-events': { body: dataOf(z.array(tailedEventResource)) },
  'ops-list-dead-letters': { body: dataOf(z.array(deadLetterResource)) },
  'ops-redrive-dead-letters': { body: dataOf(z.object({ group: z.string(), redriven: z.number().int().min(0) })) },
};
