export { loadServiceConfig } from './config.js';
export type { ServiceConfig, TopicSettings } from './config.js';
export type { PlatformDeps } from './platformDeps.js';
export { createEventPipeline } from './eventPipeline.js';
export type { EventPipeline, EventPipelineOptions } from './eventPipeline.js';
export { runService } from './runService.js';
export type { RunnableService } from './runService.js';
