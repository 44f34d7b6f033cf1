import { operationsGatedBy, routeCatalog } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { featureCatalog } from './catalog.js';

/** CometChat's `/v3/calls` starts a call; here a call starts with a call message (ADR 0017). */
const gatedPath = (path: string) => (path === '/v3/calls' ? '/v3/messages' : path);

describe('restrictable features', () => {
  // A key added to the catalogue without a gate would be stored, listed and never applied.
  it.each(featureCatalog.map((spec) => [spec.key, spec] as const))('%s gates at least one operation of the route catalogue', (key, spec) => {
    const gated = operationsGatedBy(key);
    expect(gated.length).toBeGreaterThan(0);
    const routes = gated.map((operationId) => routeCatalog.find((route) => route.operationId === operationId));
    expect(routes.every((route) => route !== undefined)).toBe(true);
    // The path the catalogue shows for the feature is the path of an operation it gates.
    const paths = routes.map((route) => `/v3${route!.path.replace(/:([A-Za-z]+)/g, '{{$1}}')}`);
    expect(paths).toContain(gatedPath(spec.path));
  });
});
