import { apiKeyIdentitySchema, appLocationSchema, internalPaths } from '@chat/contracts';
import type { ApiKeyIdentity, AppLocation } from '@chat/contracts';

export interface ManagementLookups {
  fetchKey: (keyHash: string) => Promise<ApiKeyIdentity | null>;
  fetchApp: (appId: string) => Promise<AppLocation | null>;
}

/** The management service's internal endpoints; 404 means "no such key/app", anything else is a failure. */
export function managementLookups(baseUrl: string, timeoutMs: number): ManagementLookups {
  async function getJson(path: string): Promise<unknown> {
    const response = await fetch(`${baseUrl}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`management answered ${response.status} to ${path}`);
    }
    return response.json();
  }
  return {
    fetchKey: async (keyHash) => {
      const body = await getJson(internalPaths.apiKeyByHash(keyHash));
      return body === null ? null : apiKeyIdentitySchema.parse(body);
    },
    fetchApp: async (appId) => {
      const body = await getJson(internalPaths.app(appId));
      return body === null ? null : appLocationSchema.parse(body);
    },
  };
}
