export { ApiError, errorStatus, isErrorCode } from './errors.js';
export type { ErrorBody, ErrorCode } from './errors.js';
export {
  APP_ID_PATTERN,
  AppId,
  UID_PATTERN,
  Uid,
  groupConversationId,
  isUid,
  normalizeUid,
  userConversationId,
} from './ids.js';
export { AUTH_TOKEN_SCOPE, INTERNAL_HEADER_PREFIX, REQUEST_ID_PATTERN, apiKeyScopes, internalHeaders } from './headers.js';
export type { Actor, ApiKeyScope, RequestContext } from './headers.js';
export { deadLetterTopic, topics } from './topics.js';
export { callActions, callModes, isCallMessageEvent } from './calls.js';
export type { CallAction, CallMode } from './calls.js';
export type { Topic } from './topics.js';
export { actorSchema, eventEnvelopeSchema, eventHeaderNames } from './envelope.js';
export type { EventEnvelope } from './envelope.js';
export { eventCatalog, eventSchemas, eventTypeIn, eventUpcasters, isKnownEventType, parseKnownEvent, retiredEventTypes, topicOf } from './events/registry.js';
export { EventSchemaRegistry } from './events/schemaVersions.js';
export type { Upcaster, Upcasters, VersionedSchemas } from './events/schemaVersions.js';
export { asyncApiDocument } from './asyncapi.js';
export { DESCRIBED_NOW_SECONDS, commonErrors, importRequest, openApiDocument, openApiPath } from './openapi.js';
export * from './responseShapes.js';
export type { OperationResponse, OperationSchemas, RequestSchemas, ResponseSchemas } from './openapi.js';
export type { EventData, EventOf, EventType, KnownEvent } from './events/registry.js';
// Each event module is a published contract: its schemas and types are all public.
export * from './events/users.js';
export * from './events/groups.js';
export * from './events/messages.js';
export * from './events/moderation.js';
export * from './events/personalMessages.js';
export * from './events/conversations.js';
export type {
  ApiKeyCreated,
  ApiKeyDeleted,
  ApiKeyUpdated,
  AppCreated,
  AppDeleted,
  AppSettingsReset,
  AppSettingsSet,
  AppUsageRequested,
  CollaboratorRole,
  CollaboratorsChanged,
  TenantCreated,
  WebhookCreated,
  WebhookDeleted,
  WebhookSecretRotated,
  WebhookTriggersChanged,
  WebhookUpdated,
} from './events/management.js';
export {
  apiKeyEventTypes,
  appEventTypes,
  appSettingsEventTypes,
  collaboratorRoles,
  webhookConfigEventTypes,
  webhookEventTypes,
} from './events/management.js';
export * from './events/webhooks.js';
export * from './events/notifications.js';
export { LOG_LEVELS, logLevelOf, logLevelSetting, parseEnvironment, portSetting } from './environment.js';
export type { LogLevel } from './environment.js';
export { isWebhookTrigger, webhookTriggers } from './webhooks.js';
export {
  appDocumentEventTypes,
  appDocuments,
  effectiveSettings,
  mergeSettings,
  settingsCatalogue,
  webhookConfigOf,
  webhookDocumentId,
  webhookDocuments,
} from './appConfiguration.js';
export type { AppDocument, AppDocumentEvent, SettingEntry, SettingValue, WebhookDocument, WebhookDocumentEvent, WebhookState } from './appConfiguration.js';
export type { WebhookTrigger } from './webhooks.js';
export { CALLS_PATH_PREFIX, CHAT_API_PREFIX, clientAccessRules, isCallsRoute, routeCatalog, serviceNames } from './routes.js';
export { deprecatedOperations, deprecationHeaders } from './deprecations.js';
export { listParameters } from './listParameters.js';
export type { CataloguedParameter } from './listParameters.js';
export { bodyGates, limitDenial, operationGates, operationsGatedBy, roleAccessSchema, roleDenial, roleLimits, valueGates } from './roleAccess.js';
export type { RoleAccess, RoleLimits, ValueFacts } from './roleAccess.js';
export type { Deprecation } from './deprecations.js';
export type { ClientAccess, HttpMethod, OnBehalfOfRule, RequiredScope, RouteSpec, ServiceName } from './routes.js';
export {
  API_KEY_INVALIDATION_CHANNEL,
  apiKeyCacheKey,
  apiKeyIdentitySchema,
  appLocationSchema,
  authTokenOwnerSchema,
  callUsagePath,
  callUsageSchema,
  conversationEventsPageSchema,
  conversationEventsPath,
  internalPaths,
  ROLE_ACCESS_BATCH_MAX,
  roleAccessBatchRequestSchema,
  roleAccessBatchSchema,
  userExistenceSchema,
} from './internalApi.js';
export type {
  ApiKeyIdentity,
  AppLocation,
  AuthTokenOwner,
  CallUsage,
  ConversationEventsPage,
  RoleAccessBatch,
  RoleAccessBatchRequest,
  UserExistence,
} from './internalApi.js';
export { epochSeconds } from './time.js';
export { UnapplicableEventError, isUnapplicableEventError } from './unapplicableEvent.js';
export { consistencyHeaders, conversationLogStreamId, decodeConsistencyToken, encodeConsistencyToken } from './consistencyToken.js';
export { AS_OF_DESCRIPTION, parseAsOf } from './asOf.js';
export type { AsOf } from './asOf.js';
// The realtime channel (ADR 0075): frames, close codes, query and the cursor; also `@chat/contracts/realtime`.
export * from './realtimeChannel.js';
// Presence in Redis (ADR 0077): written by realtime, read by the users service.
export * from './presence.js';
export { APP_SYSTEM, appSystemEntity, groupEntityOf, messageView, reactionSummary, userEntityOf } from './messageView.js';
export type { GroupFacts } from './messageView.js';
export { messageResourceSchema } from './messageResource.js';
export { APP_WEBHOOKS_COLLECTION, appWebhooksIdList } from './appWebhooks.js';
export type { MessageResource } from './messageResource.js';
export { docOfSent, evolveMessageDocument, messageDocId } from './messageDocument.js';
export type { MessageDoc, MessageDocumentEvent, StoredReaction } from './messageDocument.js';
