export { createManagementService, PROJECTION_GROUP } from './service.js';
export type { ManagementDeps } from './service.js';
export { loadConfig } from './config.js';
export type { ManagementConfig } from './config.js';
