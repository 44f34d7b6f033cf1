// Rewrites docs/openapi.json from the route catalogue and the services' request and response schemas
// (build first: npx tsc -b), and prints the operations that have no response schema yet.
import { writeFileSync } from 'node:fs';
import { openApiDocument, routeCatalog } from '../packages/contracts/dist/index.js';
import * as calls from '../services/calls/dist/http/openapi.js';
import * as conversations from '../services/conversations/dist/http/openapi.js';
import * as management from '../services/management/dist/http/openapi.js';
import * as messages from '../services/messages/dist/http/openapi.js';
import * as notifications from '../services/notifications/dist/http/openapi.js';
import * as users from '../services/users/dist/http/openapi.js';
import * as webhooks from '../services/webhooks/dist/http/openapi.js';

const services = [users, conversations, messages, calls, management, webhooks, notifications];
const requests = Object.assign({}, ...services.map((s) => s.requestSchemas));
const responses = Object.assign({}, ...services.map((s) => s.responseSchemas));
const target = new URL('../docs/openapi.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(openApiDocument(requests, responses), null, 2)}\n`);
const undescribed = routeCatalog.filter((route) => !responses[route.operationId]?.body).map((route) => route.operationId);
console.log(`wrote ${target.pathname}: ${routeCatalog.length} operations (and the realtime channel's two entries), ${undescribed.length} without a response schema yet${undescribed.length ? `: ${undescribed.join(', ')}` : ''}`);
