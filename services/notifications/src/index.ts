export { createNotificationsService } from './service.js';
export type { NotificationsServiceDeps } from './service.js';
export { loadConfig } from './config.js';
export type { NotificationsConfig } from './config.js';
