/** Error codes of the users area and their HTTP status (see errors.ts for the conventions). */
export const usersErrorStatus = {
  ERR_AUTH_TOKEN_NOT_FOUND: 404,
  ERR_ROLE_NOT_FOUND: 404,
  ERR_ROLE_DELETE_DENIED: 403,
  ERR_ROLE_ALREADY_EXISTS: 409, // ours: creating a role id that exists
  ERR_ROLE_IN_USE: 409, // ours: deleting a role users still have
  ERR_ROLES_LIMIT_EXCEEDED: 400, // ours: CometChat allows 25 roles per app
  ERR_PERMISSION_NOT_FOUND: 404, // ours: unknown RBAC permission id in the path
  ERR_CANNOT_FORM_SELF_RELATION: 400,
  ERR_CANNOT_BLOCK_SELF: 400,
} as const satisfies Record<string, number>;
