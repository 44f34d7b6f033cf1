import { conversationsErrorStatus } from './errorCodes/conversations.js';
import { dataImportErrorStatus } from './errorCodes/dataImport.js';
import { groupsErrorStatus } from './errorCodes/groups.js';
import { managementErrorStatus } from './errorCodes/management.js';
import { messagesErrorStatus } from './errorCodes/messages.js';
import { notificationsErrorStatus } from './errorCodes/notifications.js';
import { moderationErrorStatus } from './errorCodes/moderation.js';
import { usersErrorStatus } from './errorCodes/users.js';

/**
 * The closed set of error codes this platform answers with, and the HTTP status of each.
 * CometChat documents most codes without a status; where it is silent we chose the conventional
 * one (see docs/errors.md). Codes marked "ours" have no CometChat equivalent.
 */
export const baseErrorStatus = {
  // authentication and tenancy (gateway)
  AUTH_ERR_EMPTY_APIKEY: 401,
  AUTH_ERR_APIKEY_NOT_FOUND: 401,
  AUTH_ERR_NO_ACCESS: 403,
  // an `authtoken` (client access, ADR 0070) that is unknown, revoked, another app's, or whose user is not active
  AUTH_ERR_AUTH_TOKEN_NOT_FOUND: 401,
  // a role (RBAC) or group scope (SBAC) permission, or a restricted feature, denies the operation
  ERR_PERMISSION_DENIED: 403,
  AUTH_ERR_EMPTY_APPID: 400,
  AUTH_ERR_INVALID_APPID: 401,
  AUTH_ERR_EMPTY_AUTH_HEADER: 401,
  AUTH_ERR_INVALID_CREDENTIALS: 401, // ours: wrong management key/secret
  ERR_EMPTY_ON_BEHALF_OF: 400, // ours: onBehalfOf missing where the operation requires it
  // general
  ERR_BAD_REQUEST: 400,
  ERR_PAYLOAD_TOO_LARGE: 413, // ours
  ERR_API_NOT_FOUND: 404,
  ERR_TOO_MANY_REQUESTS: 429,
  ERR_IDEMPOTENCY_KEY_REUSED: 422, // ours: an Idempotency-Key sent again with a different request
  ERR_INVALID_IDEMPOTENCY_KEY: 400, // ours: not 1–255 visible ASCII characters
  ERR_HISTORY_TOO_LONG: 422, // ours: a time-travel read (`asOf`) would replay more events than the service allows
  ERR_CONCURRENT_MODIFICATION: 409, // ours: optimistic-concurrency retries exhausted
  ERR_UPSTREAM_UNAVAILABLE: 502, // ours
  ERR_UPSTREAM_TIMEOUT: 504, // ours
  ERR_SERVICE_UNAVAILABLE: 503, // ours: past capacity (bounded queues) or a store outage; with Retry-After
  ERR_EXCEPTION: 500,
  // management
  ERR_APP_NOT_FOUND: 404, // ours
  ERR_APIKEY_NOT_FOUND: 404,
  ERR_APIKEY_NO_SELF_ACTION: 403,
  ERR_APIKEYS_LIMIT_EXCEEDED: 400, // ours: 25 keys per app
  ERR_REGION_NOT_SERVED: 400, // ours: this deployment serves one region
  // users
  ERR_UID_NOT_FOUND: 404,
  ERR_UID_ALREADY_EXISTS: 409,
  // messages
  ERR_EMPTY_RECEIVER: 400,
  ERR_INVALID_RECEIVER_TYPE: 400,
  ERR_EMPTY_MESSAGE_TEXT: 400,
  ERR_INVALID_MESSAGE_TEXT: 400,
  ERR_INVALID_MESSAGE_TYPE: 400,
  ERR_INVALID_MESSAGE_CATEGORY: 400,
  ERR_INVALID_MESSAGE_DATA: 400,
  ERR_MESSAGE_TO_SELF: 400, // ours: a one-on-one message needs two different users
  // conversations
  ERR_CONVERSATION_NOT_ACCESSIBLE: 404,
  ERR_PINNED_CONVERSATIONS_LIMIT_EXCEEDED: 400,
  ERR_SYSTEM_PINNED_CONVERSATIONS_LIMIT_EXCEEDED: 400,
  ERR_SYSTEM_PINNED_CONVERSATION: 403,
  ERR_GUID_NOT_FOUND: 404,
} as const satisfies Record<string, number>;

export const errorStatus = {
  ...baseErrorStatus,
  ...usersErrorStatus,
  ...groupsErrorStatus,
  ...messagesErrorStatus,
  ...conversationsErrorStatus,
  ...dataImportErrorStatus,
  ...managementErrorStatus,
  ...notificationsErrorStatus,
  ...moderationErrorStatus,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof errorStatus;

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
}

/** The one exception type every layer throws; mapped to HTTP in exactly one place per process. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.status = errorStatus[code];
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorStatus, value);
}
