export { addressRefusal, guardedLookup, privateAddressPolicy, urlRefusal } from './urlGuard.js';
export type { PrivateAddressPolicy, Resolver } from './urlGuard.js';
export { DEFAULT_MAX_ANSWER_BYTES, OutboundHttp, RESPONSE_PREFIX_CHARS, RefusedUrl, readAtMost } from './outboundHttp.js';
export type { OutboundHttpOptions, SendResult } from './outboundHttp.js';
export { tenantHeaderRefusal, usableTenantHeaders } from './tenantHeaders.js';
export { Dispatcher } from './dispatcher.js';
export type { AttemptResult, DispatcherOptions, QueuedDelivery } from './dispatcher.js';
export { SecretBox, secretKeysProblem, secretKeysSetting } from './secretBox.js';
export { newWebhookSecret, webhookSignature } from './signing.js';
