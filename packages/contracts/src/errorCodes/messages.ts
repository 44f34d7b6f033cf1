/** Error codes of the messages area and their HTTP status (see errors.ts for the conventions). */
export const messagesErrorStatus = {
} as const satisfies Record<string, number>;
