export { loadServiceConfig } from './config.js';
export type { ServiceConfig } from './config.js';
export { createEventPipeline } from './eventPipeline.js';
export type { EventPipeline, EventPipelineOptions } from './eventPipeline.js';
export { runService } from './runService.js';
export type { RunnableService } from './runService.js';
