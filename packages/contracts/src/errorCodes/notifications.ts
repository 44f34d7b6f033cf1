/** Error codes of the notifications API and their HTTP status (docs/behaviour/notifications.md). */
export const notificationsErrorStatus = {
  ERR_PUSH_PROVIDER_NOT_FOUND: 404, // ours: no FCM/APNs provider with that id
  ERR_PROVIDER_NOT_CONFIGURED: 404, // ours: the Twilio/SendGrid/custom provider was never saved
  ERR_PUSH_TOKEN_NOT_FOUND: 404, // ours
  ERR_PROVIDER_URL_NOT_ALLOWED: 400, // ours: not http(s), or a private address while those are refused
  ERR_INVALID_TIMEZONE: 400, // ours: not an IANA time zone name
} as const satisfies Record<string, number>;
