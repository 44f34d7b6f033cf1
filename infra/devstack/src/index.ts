export { BROKER_HEAP_OPTS, BROKER_JVM_PERFORMANCE_OPTS, brokerJvmFlags } from './brokerJvm.js';
export { startInfrastructure } from './infrastructure.js';
export type { InfrastructureOptions, PartName, RunningInfrastructure } from './infrastructure.js';
export { serviceNode } from './nodeRuntime.js';
export { unusedPort } from './ports.js';
export { registerShutdown, stopAllStarted } from './processes.js';
export { probeKafka } from './probes.js';
export { replicasFromEnv, startExtraGateway, startServices } from './services.js';
export type { BackendName, ExtraGatewayOptions, RunningServices, ServiceInstance, ServiceStackOptions } from './services.js';
