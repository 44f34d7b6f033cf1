/** Error codes of apps, settings and webhooks, and their HTTP status (docs/errors.md). */
export const managementErrorStatus = {
  ERR_WEBHOOK_NOT_FOUND: 404,
  ERR_WEBHOOK_ALREADY_EXISTS: 409, // ours: a webhook id is unique within its app
  ERR_TRIGGER_NOT_FOUND: 400, // an unknown trigger name is a bad request, not a missing resource
  ERR_WEBHOOK_URL_NOT_ALLOWED: 400, // ours: not http(s), or a private/loopback address while those are refused
  ERR_WEBHOOKS_LIMIT_EXCEEDED: 400, // ours: 25 webhooks per app
  ERR_DELIVERY_NOT_FOUND: 404, // ours: the delivery log (extension)
} as const satisfies Record<string, number>;
