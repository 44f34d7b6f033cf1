/** Error codes of moderation and BYO agents, and their HTTP status (CometChat states none: ours, docs/behaviour/moderation.md). */
export const moderationErrorStatus = {
  ERR_BLOCKED_BY_EXTENSION: 403, // a moderation rule blocked the message; it waits for review
  ERR_RULE_NOT_FOUND: 404,
  ERR_KEYWORD_NOT_FOUND: 404,
  ERR_REASON_NOT_FOUND: 404,
  ERR_RULE_ALREADY_EXISTS: 409, // ours
  ERR_KEYWORD_ALREADY_EXISTS: 409, // ours
  ERR_REASON_ALREADY_EXISTS: 409, // ours
  ERR_KEYWORD_IN_USE: 409, // ours: an enabled rule still names the list
  ERR_MESSAGE_NOT_IN_REVIEW: 404, // ours: the message is not in that review queue
  ERR_MESSAGE_ALREADY_REVIEWED: 409, // ours
  ERR_AGENT_NOT_FOUND: 404,
  ERR_AGENT_ALREADY_EXISTS: 409,
  ERR_TOOL_NOT_FOUND: 404,
  ERR_TOOL_ALREADY_EXISTS: 409,
  ERR_TOOL_IN_USE: 409, // ours: an agent still names the tool
  ERR_AGENT_URL_NOT_ALLOWED: 400, // ours: an agent's URL must be http(s)
} as const satisfies Record<string, number>;
