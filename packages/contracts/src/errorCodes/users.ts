/** Error codes of the users area and their HTTP status (see errors.ts for the conventions). */
export const usersErrorStatus = {
} as const satisfies Record<string, number>;
