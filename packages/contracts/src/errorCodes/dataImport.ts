/** Error codes of the data import operations and their HTTP status (see errors.ts for the conventions). */
export const dataImportErrorStatus = {
  // CometChat: the body's property must be a map of records of that kind
  ERR_IMPORT_INVALID_USER_FORMAT: 400,
  ERR_IMPORT_INVALID_GROUP_FORMAT: 400,
  ERR_IMPORT_INVALID_MEMBER_FORMAT: 400,
  ERR_IMPORT_INVALID_MESSAGE_FORMAT: 400,
  ERR_IMPORT_INVALID_JOINEDAT: 400,
  ERR_IMPORT_MUID_ALREADY_EXISTS: 409,
  ERR_IMPORT_TOO_MANY_RECORDS: 400, // ours: more records in one request than CometChat's 50
} as const satisfies Record<string, number>;
