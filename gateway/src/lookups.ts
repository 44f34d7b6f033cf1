import { apiKeyIdentitySchema, appLocationSchema, internalPaths } from '@chat/contracts';
import type { ApiKeyIdentity, AppLocation } from '@chat/contracts';
import { internalJsonClient } from '@chat/http';

export interface ManagementLookups {
  fetchKey: (keyHash: string) => Promise<ApiKeyIdentity | null>;
  fetchApp: (appId: string) => Promise<AppLocation | null>;
  /** Closes the connections to the management service. */
  close: () => Promise<void>;
}

/** The management service's internal endpoints; 404 means "no such key/app", anything else is a failure. */
export function managementLookups(baseUrl: string, timeoutMs: number): ManagementLookups {
  const client = internalJsonClient(baseUrl, timeoutMs, 'management');
  return {
    fetchKey: async (keyHash) => {
      const body = await client.get(internalPaths.apiKeyByHash(keyHash));
      return body === null ? null : apiKeyIdentitySchema.parse(body);
    },
    fetchApp: async (appId) => {
      const body = await client.get(internalPaths.app(appId));
      return body === null ? null : appLocationSchema.parse(body);
    },
    close: () => client.close(),
  };
}
