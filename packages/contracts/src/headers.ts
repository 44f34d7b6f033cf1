/**
 * Identity the gateway forwards to services. The gateway deletes every `x-chat-*` header a client sends
 * and sets these itself; services trust nothing else.
 */
export const internalHeaders = {
  appId: 'x-chat-app-id',
  keyId: 'x-chat-key-id',
  scope: 'x-chat-scope',
  onBehalfOf: 'x-chat-on-behalf-of',
  /** Set when a client authenticated with an auth token (not an API key): its `tokenId`; the acting user is `onBehalfOf`. */
  authTokenId: 'x-chat-auth-token-id',
  management: 'x-chat-management',
  /** The acting user's value-level role limits on the operation (`RoleLimits`, URI-encoded JSON), when any. */
  roleLimits: 'x-chat-role-limits',
  requestId: 'x-request-id',
} as const;

export const INTERNAL_HEADER_PREFIX = 'x-chat-';

/**
 * A client's `x-request-id` that the gateway adopts (else it makes one): it becomes the events'
 * correlation id and a log field, so only short, plain tokens are taken as they are.
 */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

export const apiKeyScopes = ['fullAccess', 'authOnly'] as const;
export type ApiKeyScope = (typeof apiKeyScopes)[number];

/** The actor of a server call, as the gateway established it. */
export interface Actor {
  appId: string;
  keyId: string;
  scope: ApiKeyScope | 'management';
  uid?: string;
}

/**
 * Who asks, in which request: what a use case is handed by its route (or by a consumer acting for an
 * event). The `requestId` (the gateway's `x-request-id`) is the correlation id of every event it causes.
 */
export interface RequestContext {
  actor: Actor;
  requestId: string;
  /** The event a command reacts to (a consumer acting on it), for the envelopes' `causationId`. */
  causationId?: string;
  /** The positions the request's consistency token names: writes the client made, perhaps on another replica. */
  awaited?: ReadonlyMap<string, number>;
}
