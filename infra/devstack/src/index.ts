export { startInfrastructure } from './infrastructure.js';
export type { InfrastructureOptions, PartName, RunningInfrastructure } from './infrastructure.js';
export { registerShutdown, stopAllStarted } from './processes.js';
export { startServices } from './services.js';
export type { RunningServices, ServiceStackOptions } from './services.js';
