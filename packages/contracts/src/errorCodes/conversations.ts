/** Error codes of the conversations area and their HTTP status (see errors.ts for the conventions). */
export const conversationsErrorStatus = {
  /** Deprecated get/delete by conversation id: no such conversation in the app. */
  ERR_CONVERSATION_NOT_FOUND: 404,
} as const satisfies Record<string, number>;
