/**
 * The operations the gateway lets through, with what each requires. Services implement the same
 * paths; this table is the single place where scope and onBehalfOf rules live, so the gateway can
 * refuse a request before any service sees it.
 */
export const serviceNames = ['users', 'conversations', 'messages', 'calls', 'management', 'webhooks', 'notifications'] as const;
export type ServiceName = (typeof serviceNames)[number];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * `authOnly`: either key scope may call it. `fullAccess`: only a REST API key.
 * `management`: the management `key`/`secret` pair.
 */
export type RequiredScope = 'authOnly' | 'fullAccess' | 'management';

/** `ignored`: the header is not forwarded, the operation acts as the app itself. */
export type OnBehalfOfRule = 'required' | 'optional' | 'ignored';

/**
 * What a client holding a user's auth token (header `authtoken`, no API key) may call (ADR 0070). The call
 * acts as the token's user (forwarded as onBehalfOf), so the service applies that user's rules:
 * - `user`: an operation a user performs for itself (send, read, react, mark, join, …);
 * - `self`: the same, on the token's own uid only, where the path's `:uid` names the acting user
 *   (friends, blocked users);
 * - `app`: the app's operation (users of others, roles, keys, settings, moderation, imports…): refused.
 */
export const clientAccessRules = ['user', 'self', 'app'] as const;
export type ClientAccess = (typeof clientAccessRules)[number];

export interface RouteSpec {
  api: 'chat' | 'management';
  method: HttpMethod;
  /** Path template below the API prefix (`/v3` for chat, none for management); `:name` is a parameter. */
  path: string;
  operationId: string;
  service: ServiceName;
  scope: RequiredScope;
  onBehalfOf: OnBehalfOfRule;
  /** Whether a client with an auth token may call it (every operation says; management ones are `app`). */
  client: ClientAccess;
}

const chat = (
  method: HttpMethod,
  path: string,
  operationId: string,
  service: ServiceName,
  scope: 'authOnly' | 'fullAccess',
  onBehalfOf: OnBehalfOfRule,
  client: ClientAccess,
): RouteSpec => ({ api: 'chat', method, path, operationId, service, scope, onBehalfOf, client });

const management = (method: HttpMethod, path: string, operationId: string, service: ServiceName = 'management'): RouteSpec => ({
  api: 'management',
  method,
  path,
  operationId,
  service,
  scope: 'management',
  onBehalfOf: 'ignored',
  client: 'app',
});

export const CHAT_API_PREFIX = '/v3';

/** The calls API's paths (below the chat prefix): served on the calls host, and on a plain host. */
export const CALLS_PATH_PREFIX = '/calls';

export function isCallsRoute(route: Pick<RouteSpec, 'api' | 'path'>): boolean {
  return route.api === 'chat' && (route.path === CALLS_PATH_PREFIX || route.path.startsWith(`${CALLS_PATH_PREFIX}/`));
}

export const routeCatalog: readonly RouteSpec[] = [
  // users (authOnly keys may create users and auth tokens and nothing else)
  chat('POST', '/users', 'create-user', 'users', 'authOnly', 'ignored', 'app'),
  chat('GET', '/users', 'list-users', 'users', 'fullAccess', 'ignored', 'user'),
  chat('PUT', '/users', 'reactivate-users', 'users', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/users', 'deactivate-users', 'users', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/users/:uid', 'get-user', 'users', 'fullAccess', 'optional', 'user'),
  chat('PUT', '/users/:uid', 'update-user', 'users', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/users/:uid', 'delete-user', 'users', 'fullAccess', 'ignored', 'app'),
  // auth tokens
  chat('POST', '/users/:uid/auth_tokens', 'create-authtoken', 'users', 'authOnly', 'ignored', 'app'),
  chat('GET', '/users/:uid/auth_tokens', 'list-authtokens', 'users', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/users/:uid/auth_tokens', 'flush-authtokens', 'users', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/users/:uid/auth_tokens/:authToken', 'get-authtoken', 'users', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/users/:uid/auth_tokens/:authToken', 'update-authtoken', 'users', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/users/:uid/auth_tokens/:authToken', 'delete-authtoken', 'users', 'fullAccess', 'ignored', 'app'),
  // friends and blocked users: the path's uid is the acting user
  chat('GET', '/users/:uid/friends', 'list-all-friends', 'users', 'fullAccess', 'ignored', 'self'),
  chat('POST', '/users/:uid/friends', 'add-friend', 'users', 'fullAccess', 'ignored', 'self'),
  chat('DELETE', '/users/:uid/friends', 'remove-friend', 'users', 'fullAccess', 'ignored', 'self'),
  chat('GET', '/users/:uid/blockedusers', 'list-blocked-users', 'users', 'fullAccess', 'ignored', 'self'),
  chat('POST', '/users/:uid/blockedusers', 'block-users', 'users', 'fullAccess', 'ignored', 'self'),
  chat('DELETE', '/users/:uid/blockedusers', 'unblock-users', 'users', 'fullAccess', 'ignored', 'self'),
  // roles, RBAC role permissions, restricted features
  chat('GET', '/roles', 'list-roles', 'users', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/roles', 'create-role', 'users', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/roles/:role', 'get-role', 'users', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/roles/:role', 'update-role', 'users', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/roles/:role', 'delete-role', 'users', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/roles/:role/permissions', 'list-role-permissions', 'users', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/roles/:role/permissions', 'set-role-permissions', 'users', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/roles/:role/permissions/:permission', 'unset-role-permissions', 'users', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/roles/:role/restrictedfeatures', 'get-restrictedfeatures', 'users', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/roles/:role/restrictedfeatures', 'restrict-features', 'users', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/roles/:role/restrictedfeatures', 'allow-features', 'users', 'fullAccess', 'ignored', 'app'),
  // groups, members, bans, group scope permissions (conversations service)
  chat('GET', '/groups', 'list-groups', 'conversations', 'fullAccess', 'optional', 'user'),
  chat('POST', '/groups', 'create-group', 'conversations', 'fullAccess', 'optional', 'user'),
  chat('GET', '/groups/:guid', 'get-group', 'conversations', 'fullAccess', 'optional', 'user'),
  chat('PUT', '/groups/:guid', 'update-group', 'conversations', 'fullAccess', 'optional', 'user'),
  chat('DELETE', '/groups/:guid', 'delete-group', 'conversations', 'fullAccess', 'optional', 'user'),
  chat('GET', '/groups/:guid/members', 'list-group-members', 'conversations', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/groups/:guid/members', 'add-group-members', 'conversations', 'fullAccess', 'optional', 'user'),
  chat('PUT', '/groups/:guid/members/:uid', 'change-group-member-scope', 'conversations', 'fullAccess', 'optional', 'user'),
  chat('DELETE', '/groups/:guid/members/:uid', 'kick-group-member', 'conversations', 'fullAccess', 'optional', 'user'),
  chat('GET', '/groups/:guid/bannedusers', 'list-banned-group-users', 'conversations', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/groups/:guid/bannedusers/:uid', 'ban-group-user', 'conversations', 'fullAccess', 'optional', 'user'),
  chat('DELETE', '/groups/:guid/bannedusers/:uid', 'unban-group-user', 'conversations', 'fullAccess', 'optional', 'user'),
  chat('GET', '/groups/:guid/scopes/:scope/permissions', 'list-scope-permissions', 'conversations', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/groups/:guid/scopes/:scope/permissions', 'set-scope-permissions', 'conversations', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/groups/:guid/scopes/:scope/permissions/:permission', 'unset-scope-permissions', 'conversations', 'fullAccess', 'ignored', 'app'),
  // messages
  chat('POST', '/messages', 'send-message', 'messages', 'fullAccess', 'optional', 'user'),
  chat('GET', '/messages', 'list-all-messages', 'messages', 'fullAccess', 'optional', 'user'),
  chat('GET', '/messages/:id', 'get-message-details', 'messages', 'fullAccess', 'optional', 'user'),
  chat('PUT', '/messages/:id', 'update-message', 'messages', 'fullAccess', 'optional', 'user'),
  chat('DELETE', '/messages/:id', 'delete-message', 'messages', 'fullAccess', 'optional', 'user'),
  chat('GET', '/messages/:id/reactions', 'list-all-reactions', 'messages', 'fullAccess', 'optional', 'user'),
  chat('GET', '/messages/:id/reactions/:reaction', 'get-message-reactions', 'messages', 'fullAccess', 'optional', 'user'),
  chat('POST', '/messages/:id/reactions/:reaction', 'add-message-reactions', 'messages', 'fullAccess', 'required', 'user'),
  chat('DELETE', '/messages/:id/reactions/:reaction', 'remove-message-reactions', 'messages', 'fullAccess', 'required', 'user'),
  chat('GET', '/messages/:id/thread', 'list-all-thread-messages', 'messages', 'fullAccess', 'optional', 'user'),
  chat('POST', '/messages/:id/thread', 'send-thread-message', 'messages', 'fullAccess', 'required', 'user'),
  chat('GET', '/users/:uid/messages', 'user-list-user-messages', 'messages', 'fullAccess', 'optional', 'user'),
  chat('GET', '/groups/:guid/messages', 'user-list-group-messages', 'messages', 'fullAccess', 'optional', 'user'),
  // message pins (docs pages): the app pins as itself, a user on their own behalf
  chat('POST', '/messages/:id/pin', 'pin-message', 'messages', 'fullAccess', 'optional', 'user'),
  chat('DELETE', '/messages/:id/pin', 'unpin-message', 'messages', 'fullAccess', 'optional', 'user'),
  // a user's own marks on messages (docs pages, 2025): saves, interactions, thread subscriptions; the inbox of threads
  chat('POST', '/messages/:id/save', 'save-message', 'messages', 'fullAccess', 'required', 'user'),
  chat('DELETE', '/messages/:id/save', 'unsave-message', 'messages', 'fullAccess', 'required', 'user'),
  chat('PATCH', '/messages/:id/interacted', 'mark-message-as-interacted', 'messages', 'fullAccess', 'required', 'user'),
  chat('POST', '/messages/:id/thread/subscription', 'subscribe-thread', 'messages', 'fullAccess', 'required', 'user'),
  chat('DELETE', '/messages/:id/thread/subscription', 'unsubscribe-thread', 'messages', 'fullAccess', 'required', 'user'),
  chat('GET', '/threads', 'list-threads', 'messages', 'fullAccess', 'optional', 'user'),
  chat('POST', '/bots/:uid/messages', 'send-bot-message', 'messages', 'fullAccess', 'ignored', 'app'),
  // conversations
  chat('GET', '/conversations', 'list-all-conversations', 'conversations', 'fullAccess', 'optional', 'user'),
  chat('GET', '/conversations/pinned', 'list-global-pinned-conversations', 'conversations', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/conversations/pinned', 'replace-global-pinned-conversations', 'conversations', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/conversations/:conversationId', 'get-conversation', 'conversations', 'fullAccess', 'required', 'user'),
  chat('DELETE', '/conversations/:conversationId', 'delete-conversation', 'conversations', 'fullAccess', 'required', 'user'),
  chat('GET', '/users/:uid/conversation', 'get-user-conversations', 'conversations', 'fullAccess', 'required', 'user'),
  chat('PUT', '/users/:uid/conversation', 'update-user-conversation', 'conversations', 'fullAccess', 'required', 'user'),
  chat('DELETE', '/users/:uid/conversation', 'reset-user-conversation', 'conversations', 'fullAccess', 'required', 'user'),
  chat('POST', '/users/:uid/conversation/delivered', 'mark-conversation-as-delivered', 'conversations', 'fullAccess', 'required', 'user'),
  chat('POST', '/users/:uid/conversation/read', 'mark-conversation-as-read', 'conversations', 'fullAccess', 'required', 'user'),
  chat('DELETE', '/users/:uid/conversation/read', 'mark-conversation-as-unread', 'conversations', 'fullAccess', 'required', 'user'),
  chat('POST', '/users/:uid/conversation/pin', 'pin-user-conversation', 'conversations', 'fullAccess', 'required', 'user'),
  chat('DELETE', '/users/:uid/conversation/pin', 'unpin-user-conversation', 'conversations', 'fullAccess', 'required', 'user'),
  chat('GET', '/groups/:guid/conversation', 'get-group-conversations', 'conversations', 'fullAccess', 'required', 'user'),
  chat('PUT', '/groups/:guid/conversation', 'update-group-conversation', 'conversations', 'fullAccess', 'required', 'user'),
  chat('DELETE', '/groups/:guid/conversation', 'reset-group-conversation', 'conversations', 'fullAccess', 'required', 'user'),
  chat('POST', '/groups/:guid/conversation/delivered', 'mark-group-conversation-as-delivered', 'conversations', 'fullAccess', 'required', 'user'),
  chat('POST', '/groups/:guid/conversation/read', 'mark-group-conversation-as-read', 'conversations', 'fullAccess', 'required', 'user'),
  // The catalog omits onBehalfOf here, but an unread mark belongs to one user as for the user variant.
  chat('DELETE', '/groups/:guid/conversation/read', 'mark-group-conversation-as-unread', 'conversations', 'fullAccess', 'required', 'user'),
  chat('POST', '/groups/:guid/conversation/pin', 'pin-group-conversation', 'conversations', 'fullAccess', 'required', 'user'),
  chat('DELETE', '/groups/:guid/conversation/pin', 'unpin-group-conversation', 'conversations', 'fullAccess', 'required', 'user'),
  // calls ({calls_url}: the calls host, or /v3/calls… on a plain host): records folded from call messages
  // by the calls service (ADR 0064)
  chat('GET', '/calls', 'list-calls', 'calls', 'fullAccess', 'optional', 'user'),
  chat('GET', '/calls/:sessionId', 'retrieve-call-details', 'calls', 'fullAccess', 'optional', 'user'),
  chat('GET', '/calls/:sessionId/transcriptions', 'retrieve-call-transcriptions', 'calls', 'fullAccess', 'optional', 'user'),
  // usage metrics, from the messages read models and the calls service's call figures
  chat('GET', '/stats', 'usage-metrics', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/stats/messages', 'message-receipt-metrics', 'messages', 'fullAccess', 'ignored', 'app'),
  // data import: each resource goes to the service that owns it; records keep the caller's ids and times
  chat('POST', '/data_import/users', 'import-users', 'users', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/data_import/groups', 'import-groups', 'conversations', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/data_import/members', 'import-members', 'conversations', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/data_import/messages', 'import-messages', 'messages', 'fullAccess', 'ignored', 'app'),
  // moderation (the messages service enforces it on send, so it owns its settings and review queues)
  chat('GET', '/moderation/reasons', 'list-reasons', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/moderation/reasons', 'create-reason', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/moderation/reasons/:id', 'get-reason-details', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/moderation/reasons/:id', 'update-reason-details', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/moderation/reasons/:id', 'delete-reason', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/moderation/rules', 'list-rules', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/moderation/rules', 'create-rule', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/moderation/rules/:ruleId', 'get-rule', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/moderation/rules/:ruleId', 'update-rule', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/moderation/rules/:ruleId', 'delete-rule', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/moderation/rules/:ruleId/revisions', 'list-rule-revisions', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/moderation/keywords', 'list-rule-keywords', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/moderation/keywords', 'create-rule-keyword', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/moderation/keywords/:keywordId', 'get-rule-keyword', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/moderation/keywords/:keywordId', 'update-rule-keyword', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/moderation/keywords/:keywordId', 'delete-rule-keyword', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/messages/:id/flagged', 'flag-a-message', 'messages', 'fullAccess', 'optional', 'user'),
  chat('GET', '/moderation/flagged-messages', 'list-flagged-messages', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('PATCH', '/moderation/flagged-messages/:id', 'blockreview-flagged-message', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/moderation/reviewed-messages', 'list-reviewed-messages', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/moderation/blocked-messages', 'list-moderation-blocked-messages', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('PATCH', '/moderation/blocked-messages/:id', 'review-blocked-message', 'messages', 'fullAccess', 'ignored', 'app'),
  // BYO AI agents (docs pages rest-api/byo-ai-agents-apis): AG-UI agents the messages service calls
  chat('POST', '/ai-agents/agents', 'create-byo-agent', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/ai-agents/agents', 'list-byo-agents', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('PATCH', '/ai-agents/agents/:uid', 'update-byo-agent', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/ai-agents/agents/:uid', 'delete-byo-agent', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/ai-agents/tools', 'create-tool', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/ai-agents/tools', 'list-tools', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/ai-agents/tools/:name', 'get-tool', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('PATCH', '/ai-agents/tools/:name', 'update-tool', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/ai-agents/tools/:name', 'delete-tool', 'messages', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/ai-agents/integrations', 'list-integrations', 'messages', 'fullAccess', 'ignored', 'app'),
  // api keys
  chat('POST', '/apikeys', 'create-apikey', 'management', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/apikeys', 'list-apikeys', 'management', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/apikeys/:apiKey', 'get-apikey', 'management', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/apikeys/:apiKey', 'update-apikey', 'management', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/apikeys/:apiKey', 'delete-apikey', 'management', 'fullAccess', 'ignored', 'app'),
  // ours: what one key did, from the events' actor (ADR 0034)
  chat('GET', '/apikeys/:apiKey/audit', 'list-apikey-audit', 'management', 'fullAccess', 'ignored', 'app'),
  // management api
  management('POST', '/apps', 'create-app'),
  management('GET', '/apps', 'list-apps'),
  management('GET', '/apps/:appId', 'get-app'),
  management('DELETE', '/apps/:appId', 'delete-app'),
  management('POST', '/apps/:appId/usage', 'fetch-multi-tenant-usage'),
  management('GET', '/apps/:appId/collaborators', 'list-collaborators'),
  management('POST', '/apps/:appId/collaborators', 'add-collaborator'),
  management('GET', '/apps/:appId/settings', 'list-settings'),
  management('POST', '/apps/:appId/settings', 'map-settings'),
  management('DELETE', '/apps/:appId/settings', 'unmap-settings'),
  management('GET', '/apps/:appId/webhooks', 'list-webhooks'),
  management('POST', '/apps/:appId/webhooks', 'create-webhook'),
  management('GET', '/apps/:appId/webhooks/:webhookId', 'get-webhook'),
  management('PUT', '/apps/:appId/webhooks/:webhookId', 'update-webhook'),
  management('DELETE', '/apps/:appId/webhooks/:webhookId', 'delete-webhook'),
  management('GET', '/apps/:appId/webhooks/:webhookId/triggers', 'list-triggers'),
  management('POST', '/apps/:appId/webhooks/:webhookId/triggers', 'add-triggers'),
  management('DELETE', '/apps/:appId/webhooks/:webhookId/triggers', 'remove-triggers'),
  management('POST', '/tenants', 'add-tenant'),
  // The operator console's view of the log (ours; not in CometChat's API).
  management('GET', '/ops/lag', 'ops-consumer-lag'),
  management('GET', '/ops/events', 'ops-list-events'),
  management('GET', '/ops/deadletters', 'ops-list-dead-letters'),
  management('POST', '/ops/deadletters/redrive', 'ops-redrive-dead-letters'),
  // our extensions: secret rotation (management), the delivery log and redelivery (the webhooks process)
  management('POST', '/apps/:appId/webhooks/:webhookId/secret', 'rotate-webhook-secret'),
  // ours: a key's audit trail, for the operator (the chat API's list-apikey-audit, for any app; ADR 0034)
  management('GET', '/apps/:appId/apikeys/:apiKey/audit', 'management-list-apikey-audit'),
  management('GET', '/apps/:appId/webhooks/:webhookId/deliveries', 'list-webhook-deliveries', 'webhooks'),
  management('POST', '/apps/:appId/webhooks/:webhookId/deliveries/:deliveryId/redeliver', 'redeliver-webhook-delivery', 'webhooks'),
  management('POST', '/apps/:appId/webhooks/:webhookId/redeliver', 'redeliver-webhook-deliveries', 'webhooks'),
  // notifications (the notifications service): settings, providers, preferences, tokens and the log
  chat('GET', '/notifications/v1/settings', 'notifications-push-list-settings', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('PATCH', '/notifications/v1/settings', 'notifications-push-update-settings', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/notifications/v1/settings', 'notifications-push-reset-settings', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/notifications/push/v1/providers/fcm', 'notifications-push-list-fcm-providers', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/notifications/push/v1/providers/fcm', 'notifications-push-add-fcm-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/notifications/push/v1/providers/fcm', 'notifications-push-update-fcm-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/notifications/push/v1/providers/fcm/:providerId', 'notifications-push-delete-fcm-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/notifications/push/v1/providers/fcm/default/:providerId', 'notifications-push-default-fcm-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/notifications/push/v1/providers/apns', 'notifications-push-list-apns-providers', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/notifications/push/v1/providers/apns', 'notifications-push-add-apns-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/notifications/push/v1/providers/apns', 'notifications-push-update-apns-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/notifications/push/v1/providers/apns/:providerId', 'notifications-push-delete-apns-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/notifications/push/v1/providers/apns/default/:providerId', 'notifications-push-default-apns-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/notifications/v1/preferences', 'notifications-push-list-preferences', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('PATCH', '/notifications/v1/preferences', 'notifications-push-update-preferences', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/notifications/v1/preferences', 'notifications-push-reset-preferences', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/notifications/push/v1/tokens', 'notifications-push-list-tokens', 'notifications', 'fullAccess', 'ignored', 'user'),
  chat('POST', '/notifications/push/v1/tokens', 'notifications-push-register-token', 'notifications', 'fullAccess', 'ignored', 'user'),
  chat('DELETE', '/notifications/push/v1/tokens', 'notifications-push-unregister-tokens', 'notifications', 'fullAccess', 'ignored', 'user'),
  chat('DELETE', '/notifications/push/v1/tokens/:pushToken', 'notifications-push-delete-token', 'notifications', 'fullAccess', 'ignored', 'user'),
  chat('GET', '/notifications/v1/preferences/mute', 'notifications-push-list-muted', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/notifications/v1/preferences/mute', 'notifications-push-mute-conversations', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/notifications/v1/preferences/mute', 'notifications-push-unmute-conversations', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/notifications/v1/preferences/timezone', 'notifications-get-timezone', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('PATCH', '/notifications/v1/preferences/timezone', 'notifications-update-timezone', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/notifications/v1/contact-details', 'notifications-get-contact-details', 'notifications', 'fullAccess', 'required', 'user'),
  chat('PATCH', '/notifications/v1/contact-details', 'notifications-update-contact-details', 'notifications', 'fullAccess', 'required', 'user'),
  chat('DELETE', '/notifications/v1/contact-details', 'notifications-delete-contact-details', 'notifications', 'fullAccess', 'required', 'user'),
  chat('GET', '/notifications/sms/v1/providers/twilio', 'notifications-sms-list-twilio-details', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/notifications/sms/v1/providers/twilio', 'notifications-sms-save-twilio-details', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/notifications/sms/v1/providers/twilio', 'notifications-sms-update-twilio-details', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/notifications/sms/v1/providers/twilio', 'notifications-sms-delete-twilio-details', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/notifications/email/v1/providers/sendgrid', 'notifications-email-list-sendgrid-details', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/notifications/email/v1/providers/sendgrid', 'notifications-email-save-sendgrid-details', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/notifications/email/v1/providers/sendgrid', 'notifications-email-update-sendgrid-details', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/notifications/email/v1/providers/sendgrid', 'notifications-email-delete-sendgrid-details', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/notifications/push/v1/providers/custom', 'notifications-list-push-custom-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/notifications/push/v1/providers/custom', 'notifications-save-push-custom-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/notifications/push/v1/providers/custom', 'notifications-update-push-custom-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/notifications/push/v1/providers/custom', 'notifications-delete-push-custom-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/notifications/sms/v1/providers/custom', 'notifications-list-sms-custom-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/notifications/sms/v1/providers/custom', 'notifications-save-sms-custom-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/notifications/sms/v1/providers/custom', 'notifications-update-sms-custom-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/notifications/sms/v1/providers/custom', 'notifications-delete-sms-custom-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/notifications/email/v1/providers/custom', 'notifications-list-email-custom-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('POST', '/notifications/email/v1/providers/custom', 'notifications-save-email-custom-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('PUT', '/notifications/email/v1/providers/custom', 'notifications-update-email-custom-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('DELETE', '/notifications/email/v1/providers/custom', 'notifications-delete-email-custom-provider', 'notifications', 'fullAccess', 'ignored', 'app'),
  chat('GET', '/notifications/v1/logs', 'notifications-logs', 'notifications', 'fullAccess', 'ignored', 'app'),
];
