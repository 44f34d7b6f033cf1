// The realtime channel's contract alone (`@chat/contracts/realtime`): what the client package needs,
// without the rest of the contracts (event catalogue, OpenAPI), so a browser bundle stays small.
export * from './realtime.js';
export * from './realtimeCursor.js';
