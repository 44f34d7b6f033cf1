import type { AuditTrail } from '../../adapters/audit/auditTrail.js';
import type { AuditEntry, AuditFilter } from '../../domain/audit/auditLog.js';
import type { ApiKeyDocument } from '../../projections/apps/apiKeys.js';
import type { ManagementQueries } from '../apps/queries.js';

/** What a client may narrow a key's trail to: event types, and a time window in unix seconds (both ends inclusive). */
export interface AuditRequest {
  types?: readonly string[] | undefined;
  since?: number | undefined;
  until?: number | undefined;
}

/** Reads a key's audit trail for the app that owns the key; any other app sees a missing key. */
export class AuditQueries {
  constructor(
    private readonly queries: ManagementQueries,
    private readonly trail: AuditTrail,
  ) {}

  /** An app that exists (404 `ERR_APP_NOT_FOUND` otherwise), for the management API's reads. */
  async app(appId: string): Promise<{ appId: string }> {
    return this.queries.existingApp(appId);
  }

  /** The key a path parameter names. A revoked key's trail stays readable: what a key did matters most once it is revoked. */
  key(appId: string, keyParam: string): Promise<ApiKeyDocument> {
    return this.queries.getApiKey(appId, keyParam, { includeDeleted: true });
  }

  /** Newest first: `skip` matches passed over (a page number), or below `belowKey` (a cursor). */
  async page(
    appId: string,
    keyId: string,
    request: AuditRequest,
    position: { belowKey: string | undefined; skip: number },
    perPage: number,
  ): Promise<{ entries: AuditEntry[]; total: number; more: boolean }> {
    const filter: AuditFilter = {
      types: request.types ? new Set(request.types) : undefined,
      since: request.since !== undefined ? new Date(request.since * 1000).toISOString() : undefined,
      before: request.until !== undefined ? new Date((request.until + 1) * 1000).toISOString() : undefined,
      belowKey: position.belowKey,
    };
    return this.trail.page(appId, keyId, filter, position.skip, perPage);
  }
}
