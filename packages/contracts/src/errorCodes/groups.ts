/** Error codes of the groups area and their HTTP status (see errors.ts for the conventions). */
export const groupsErrorStatus = {
  // CometChat's codes (its Error Guide states no status; these are the conventional ones, docs/behaviour/groups.md)
  ERR_GUID_ALREADY_EXISTS: 409,
  ERR_EMPTY_GROUP_PASS: 400,
  ERR_WRONG_GROUP_PASS: 403,
  ERR_NOT_A_MEMBER: 404,
  ERR_ALREADY_JOINED: 409,
  ERR_GROUP_NOT_JOINED: 403,
  ERR_GROUP_JOIN_NOT_ALLOWED: 403,
  ERR_SAME_SCOPE: 400,
  ERR_NOT_A_BANNED_USER: 404,
  ERR_BANNED_GROUPMEMBER: 403,
  ERR_ALREADY_BANNED: 409,
  ERR_GROUP_NO_CLEARANCE: 403,
  ERR_GROUP_NO_ADMIN_SCOPE: 403,
  ERR_GROUP_NO_MODERATOR_SCOPE: 403,
  ERR_GROUP_NO_SELF_ACTION: 403,
} as const satisfies Record<string, number>;
