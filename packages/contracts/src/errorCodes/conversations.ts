/** Error codes of the conversations area and their HTTP status (see errors.ts for the conventions). */
export const conversationsErrorStatus = {
} as const satisfies Record<string, number>;
