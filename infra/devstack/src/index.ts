export { startInfrastructure } from './infrastructure.js';
export type { InfrastructureOptions, PartName, RunningInfrastructure } from './infrastructure.js';
export { registerShutdown, stopAllStarted } from './processes.js';
export { startExtraGateway, startServices } from './services.js';
export type { ExtraGatewayOptions, RunningServices, ServiceStackOptions } from './services.js';
