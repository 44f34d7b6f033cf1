export { createGateway } from './app.js';
export { KEY_CACHE } from './credentialCaches.js';
export type { Gateway, GatewayDeps, InvalidationSubscriber } from './app.js';
export { loadConfig } from './config.js';
export type { GatewayConfig, Upstream } from './config.js';
export { RouteTable } from './routes.js';
export { parseHost } from './tenancy.js';
export type { HostTenancy } from './tenancy.js';
// For tools beside the gateway (the idempotency benchmark): how a replayed answer is sealed.
export { openReplay, replayKey, sealReplay } from './replaySeal.js';
