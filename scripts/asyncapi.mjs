// Rewrites docs/asyncapi.json from the event schemas in packages/contracts (build first: npx tsc -b).
import { writeFileSync } from 'node:fs';
import { asyncApiDocument } from '../packages/contracts/dist/index.js';

const target = new URL('../docs/asyncapi.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(asyncApiDocument(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
