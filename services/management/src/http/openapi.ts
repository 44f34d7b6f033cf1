import type { RequestSchemas } from '@chat/contracts';
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
import { opsDeadLettersQuery, opsEventsQuery, opsRedriveBody } from './opsRoutes.js';

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
