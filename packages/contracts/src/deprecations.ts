import { CHAT_API_PREFIX } from './routes.js';

/**
 * Operations the catalogue marks deprecated (seed §9: a deprecated endpoint names its replacement).
 * They keep working; the gateway adds `Deprecation` and `Link: <…>; rel="successor-version"` headers
 * to every answer, and the README lists them with migration notes generated from the same table.
 */
export interface Deprecation {
  /** Replacement operations, as `METHOD /path` below the chat API prefix. */
  successors: readonly { method: string; path: string }[];
  /** How a client migrates, in one sentence. */
  migration: string;
}

export const deprecatedOperations: Readonly<Record<string, Deprecation>> = {
  'get-conversation': {
    successors: [
      { method: 'GET', path: '/users/{uid}/conversation' },
      { method: 'GET', path: '/groups/{guid}/conversation' },
    ],
    migration: 'Address the conversation by its peer with onBehalfOf set: the other user’s uid, or the group’s guid.',
  },
  'delete-conversation': {
    successors: [
      { method: 'DELETE', path: '/users/{uid}/conversation' },
      { method: 'DELETE', path: '/groups/{guid}/conversation' },
    ],
    migration: 'Reset the conversation for the acting user instead of deleting it for every participant.',
  },
};

/** The two response headers a deprecated operation carries, computed once per operation. */
export function deprecationHeaders(operationId: string): Readonly<Record<string, string>> | undefined {
  const deprecation = deprecatedOperations[operationId];
  if (!deprecation) return undefined;
  return {
    // The draft's boolean form: no deprecation date was ever published for these operations.
    deprecation: 'true',
    link: deprecation.successors.map((s) => `<${CHAT_API_PREFIX}${s.path}>; rel="successor-version"; title="${s.method}"`).join(', '),
  };
}
