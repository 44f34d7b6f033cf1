/** Error codes of the messages area and their HTTP status (see errors.ts for the conventions). */
export const messagesErrorStatus = {
  ERR_MESSAGE_ID_NOT_FOUND: 404,
  ERR_MESSAGE_NOT_A_SENDER: 403,
  ERR_MESSAGE_NO_ACCESS: 403,
  ERR_MESSAGE_ACTION_NOT_ALLOWED: 400,
  ERR_BLOCKED_RECEIVER: 403,
  ERR_BLOCKED_SENDER: 403,
  ERR_EMPTY_MESSAGE_TYPE: 400,
  ERR_EMPTY_MESSAGE_FILE: 400,
  ERR_INVALID_MEDIA_MESSAGE: 400,
  ERR_EMPTY_CUSTOM_DATA: 400,
  ERR_INVALID_CUSTOM_DATA: 400,
  ERR_INVALID_METADATA: 400,
  ERR_WRONG_MESSAGE_THREAD: 400,
  ERR_MESSAGE_THREAD_NESTING: 400,
  ERR_INVALID_REACTION: 400, // ours: a reaction is 1..100 characters
  ERR_REACTION_NOT_FOUND: 404, // ours: removing a reaction the user has not made
  ERR_INVALID_MESSAGE_ID: 400,
  ERR_PINNED_MESSAGES_LIMIT_EXCEEDED: 400, // ours: CometChat's SDK docs cap a conversation at 100 pinned messages // ours: a message id (or `id` cursor) must be a positive decimal
  ERR_SAVED_MESSAGES_LIMIT_EXCEEDED: 400, // CometChat states no status; 400 like the pin limits: a user saves at most 100 messages
  ERR_CALL_NOT_FOUND: 404, // ours: no call with that session id (for the acting user)
} as const satisfies Record<string, number>;
