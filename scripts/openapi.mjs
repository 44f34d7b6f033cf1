// Rewrites docs/openapi.json from the route catalogue and the services' request schemas (build first: npx tsc -b).
import { writeFileSync } from 'node:fs';
import { openApiDocument } from '../packages/contracts/dist/index.js';
import { requestSchemas as conversations } from '../services/conversations/dist/http/openapi.js';
import { requestSchemas as management } from '../services/management/dist/http/openapi.js';
import { requestSchemas as messages } from '../services/messages/dist/http/openapi.js';
import { requestSchemas as notifications } from '../services/notifications/dist/http/openapi.js';
import { requestSchemas as users } from '../services/users/dist/http/openapi.js';
import { requestSchemas as webhooks } from '../services/webhooks/dist/http/openapi.js';

const target = new URL('../docs/openapi.json', import.meta.url);
const document = openApiDocument({ ...users, ...conversations, ...messages, ...management, ...webhooks, ...notifications });
writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
