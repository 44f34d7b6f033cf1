export { createManagementService, PROJECTION_GROUP } from './service.js';
export type { ManagementDeps } from './service.js';
export { loadConfig } from './config.js';
export type { ManagementConfig } from './config.js';
// For tools beside the service (the audit benchmark): the audit trail it writes.
export { AUDIT_COLLECTION, AuditTrail } from './adapters/audit/auditTrail.js';
export { auditEntryOf } from './domain/audit/auditLog.js';
