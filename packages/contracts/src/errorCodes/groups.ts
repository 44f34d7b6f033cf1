/** Error codes of the groups area and their HTTP status (see errors.ts for the conventions). */
export const groupsErrorStatus = {
} as const satisfies Record<string, number>;
