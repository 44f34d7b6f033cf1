import { DESCRIBED_NOW_SECONDS, importRequest } from '@chat/contracts';
import type { RequestSchemas } from '@chat/contracts';
import {
  addMembersSchema,
  changeScopeSchema,
  createGroupSchema,
  importGroupSchema,
  importMemberSchema,
  listGroupsSchema,
  listMembersSchema,
  pagingSchema,
  setScopePermissionsSchema,
  updateGroupSchema,
} from './groupsSchemas.js';
import { conversationReadSchema, listSchema, markSchema, replaceGlobalPinsSchema, resetSchema, updateSchema } from './router.js';

/** What each operation of this service parses, for the generated OpenAPI description (npm run openapi). */
export const requestSchemas: RequestSchemas = {
  'create-group': { body: createGroupSchema },
  'list-groups': { query: listGroupsSchema },
  'update-group': { body: updateGroupSchema },
  'list-group-members': { query: listMembersSchema },
  'add-group-members': { body: addMembersSchema },
  'change-group-member-scope': { body: changeScopeSchema },
  'list-banned-group-users': { query: pagingSchema },
  'set-scope-permissions': { body: setScopePermissionsSchema },
  'replace-global-pinned-conversations': { body: replaceGlobalPinsSchema },
  'list-all-conversations': { query: listSchema },
  'get-user-conversations': { query: conversationReadSchema },
  'get-group-conversations': { query: conversationReadSchema },
  'update-user-conversation': { body: updateSchema },
  'update-group-conversation': { body: updateSchema },
  'reset-user-conversation': { body: resetSchema },
  'reset-group-conversation': { body: resetSchema },
  'mark-conversation-as-delivered': { body: markSchema },
  'mark-conversation-as-read': { body: markSchema },
  'mark-conversation-as-unread': { body: markSchema },
  'mark-group-conversation-as-delivered': { body: markSchema },
  'mark-group-conversation-as-read': { body: markSchema },
  'mark-group-conversation-as-unread': { body: markSchema },
  'import-groups': { body: importRequest('groups', importGroupSchema(DESCRIBED_NOW_SECONDS)) },
  'import-members': { body: importRequest('members', importMemberSchema(DESCRIBED_NOW_SECONDS)) },
};
