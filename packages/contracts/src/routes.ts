/**
 * The operations the gateway lets through, with what each requires. Services implement the same
 * paths; this table is the single place where scope and onBehalfOf rules live, so the gateway can
 * refuse a request before any service sees it.
 */
export const serviceNames = ['users', 'conversations', 'messages', 'management'] as const;
export type ServiceName = (typeof serviceNames)[number];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * `authOnly`: either key scope may call it. `fullAccess`: only a REST API key.
 * `management`: the management `key`/`secret` pair.
 */
export type RequiredScope = 'authOnly' | 'fullAccess' | 'management';

/** `ignored`: the header is not forwarded, the operation acts as the app itself. */
export type OnBehalfOfRule = 'required' | 'optional' | 'ignored';

export interface RouteSpec {
  api: 'chat' | 'management';
  method: HttpMethod;
  /** Path template below the API prefix (`/v3` for chat, none for management); `:name` is a parameter. */
  path: string;
  operationId: string;
  service: ServiceName;
  scope: RequiredScope;
  onBehalfOf: OnBehalfOfRule;
}

const chat = (
  method: HttpMethod,
  path: string,
  operationId: string,
  service: ServiceName,
  scope: 'authOnly' | 'fullAccess',
  onBehalfOf: OnBehalfOfRule,
): RouteSpec => ({ api: 'chat', method, path, operationId, service, scope, onBehalfOf });

const management = (method: HttpMethod, path: string, operationId: string): RouteSpec => ({
  api: 'management',
  method,
  path,
  operationId,
  service: 'management',
  scope: 'management',
  onBehalfOf: 'ignored',
});

export const CHAT_API_PREFIX = '/v3';

export const routeCatalog: readonly RouteSpec[] = [
  // users
  chat('POST', '/users', 'create-user', 'users', 'authOnly', 'ignored'),
  chat('GET', '/users', 'list-users', 'users', 'fullAccess', 'ignored'),
  chat('GET', '/users/:uid', 'get-user', 'users', 'fullAccess', 'optional'),
  chat('POST', '/users/:uid/auth_tokens', 'create-authtoken', 'users', 'authOnly', 'ignored'),
  // messages
  chat('POST', '/messages', 'send-message', 'messages', 'fullAccess', 'required'),
  // conversations
  // App-wide listing without onBehalfOf arrives with the complete conversation read model (issue 4).
  chat('GET', '/conversations', 'list-all-conversations', 'conversations', 'fullAccess', 'required'),
  chat('GET', '/conversations/pinned', 'list-global-pinned-conversations', 'conversations', 'fullAccess', 'ignored'),
  chat('PUT', '/conversations/pinned', 'replace-global-pinned-conversations', 'conversations', 'fullAccess', 'ignored'),
  chat('GET', '/users/:uid/conversation', 'get-user-conversations', 'conversations', 'fullAccess', 'required'),
  chat('POST', '/users/:uid/conversation/pin', 'pin-user-conversation', 'conversations', 'fullAccess', 'required'),
  chat('DELETE', '/users/:uid/conversation/pin', 'unpin-user-conversation', 'conversations', 'fullAccess', 'required'),
  // api keys
  chat('POST', '/apikeys', 'create-apikey', 'management', 'fullAccess', 'ignored'),
  chat('GET', '/apikeys', 'list-apikeys', 'management', 'fullAccess', 'ignored'),
  chat('GET', '/apikeys/:apiKey', 'get-apikey', 'management', 'fullAccess', 'ignored'),
  chat('PUT', '/apikeys/:apiKey', 'update-apikey', 'management', 'fullAccess', 'ignored'),
  chat('DELETE', '/apikeys/:apiKey', 'delete-apikey', 'management', 'fullAccess', 'ignored'),
  // management api
  management('POST', '/apps', 'create-app'),
  management('GET', '/apps', 'list-apps'),
  management('GET', '/apps/:appId', 'get-app'),
];
