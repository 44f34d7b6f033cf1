export { createLogger } from './logger.js';
export { actingUid, actorOf, requestIdOf } from './actor.js';
export { parseWith } from './validation.js';
export { createServiceApp, errorMiddleware, notFound } from './app.js';
export type { ServiceAppOptions } from './app.js';
export { listen, onShutdownSignal } from './server.js';
export type { RunningServer } from './server.js';
