import { DESCRIBED_NOW_SECONDS, dataOf, importAnswerShape, importRequest, listMetaShape, listOf, outcomeShape, succeededShape } from '@chat/contracts';
import type { ErrorCode, RequestSchemas, ResponseSchemas } from '@chat/contracts';
import { z } from 'zod';
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
} from './groups/groupsSchemas.js';
import {
  acknowledgement,
  addMembersAnswer,
  bannedUserResource,
  conversationResource,
  globalPinResource,
  groupResource,
  memberResource,
  memberScopeResource,
  scopePermissionResource,
  scopePermissionsAnswer,
} from './resourceSchemas.js';
import { conversationReadSchema, listSchema, markSchema, replaceGlobalPinsSchema, resetSchema, updateSchema } from './conversations/router.js';

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

const group = dataOf(groupResource);
const conversation = dataOf(conversationResource);
const globalPins = dataOf(z.object({ pinnedConversations: z.array(globalPinResource) }));
const marked = dataOf(acknowledgement);
const GROUP: ErrorCode[] = ['ERR_GUID_NOT_FOUND'];
const MEMBER_CHANGE: ErrorCode[] = [...GROUP, 'ERR_UID_NOT_FOUND', 'ERR_NOT_A_MEMBER', 'ERR_GROUP_NOT_JOINED', 'ERR_GROUP_NO_CLEARANCE', 'ERR_GROUP_NO_ADMIN_SCOPE', 'ERR_GROUP_NO_MODERATOR_SCOPE', 'ERR_GROUP_NO_SELF_ACTION'];
const USER_CONVERSATION: ErrorCode[] = ['ERR_UID_NOT_FOUND', 'ERR_CONVERSATION_NOT_ACCESSIBLE'];
const GROUP_CONVERSATION: ErrorCode[] = [...GROUP, 'ERR_CONVERSATION_NOT_ACCESSIBLE', 'ERR_GROUP_NOT_JOINED'];

/** What each operation of this service answers (beyond the codes `commonErrors` gives every operation). */
export const responseSchemas: ResponseSchemas = {
  // `hasJoined` filters by the acting user: without onBehalfOf it is refused.
  'list-groups': { body: listOf(groupResource), errors: ['ERR_EMPTY_ON_BEHALF_OF'] },
  'create-group': { body: group, errors: ['ERR_GUID_ALREADY_EXISTS', 'ERR_EMPTY_GROUP_PASS', 'ERR_UID_NOT_FOUND', 'ERR_GROUP_NO_CLEARANCE'] },
  'get-group': { body: group, errors: [...GROUP, 'ERR_GROUP_NOT_JOINED'] },
  'update-group': { body: group, errors: [...GROUP, 'ERR_GROUP_NOT_JOINED', 'ERR_GROUP_NO_ADMIN_SCOPE', 'ERR_GROUP_NO_CLEARANCE', 'ERR_EMPTY_GROUP_PASS', 'ERR_UID_NOT_FOUND'] },
  'delete-group': { body: succeededShape, errors: [...GROUP, 'ERR_GROUP_NOT_JOINED', 'ERR_GROUP_NO_ADMIN_SCOPE'] },
  // Beside `meta`: the newest membership change, where a client resumes a sync (`updatedAt` + `affix`).
  'list-group-members': {
    body: z.object({ data: z.array(memberResource), meta: listMetaShape, cursor: z.object({ updatedAt: z.number().int(), affix: z.literal('append') }) }),
    errors: GROUP,
  },
  'add-group-members': { body: dataOf(addMembersAnswer), errors: [...MEMBER_CHANGE, 'ERR_EMPTY_GROUP_PASS', 'ERR_WRONG_GROUP_PASS', 'ERR_GROUP_JOIN_NOT_ALLOWED', 'ERR_BANNED_GROUPMEMBER'] },
  'change-group-member-scope': { body: dataOf(memberScopeResource), errors: [...MEMBER_CHANGE, 'ERR_SAME_SCOPE'] },
  'kick-group-member': { body: dataOf(outcomeShape), errors: MEMBER_CHANGE },
  'list-banned-group-users': { body: listOf(bannedUserResource), errors: GROUP },
  'ban-group-user': { body: dataOf(outcomeShape), errors: [...MEMBER_CHANGE, 'ERR_ALREADY_BANNED'] },
  'unban-group-user': { body: dataOf(outcomeShape), errors: [...MEMBER_CHANGE, 'ERR_NOT_A_BANNED_USER'] },
  'list-scope-permissions': { body: listOf(scopePermissionResource), errors: GROUP },
  'set-scope-permissions': { body: dataOf(scopePermissionsAnswer), errors: GROUP },
  'unset-scope-permissions': { body: dataOf(scopePermissionsAnswer), errors: [...GROUP, 'ERR_PERMISSION_NOT_FOUND'] },
  'list-all-conversations': { body: listOf(conversationResource) },
  'list-global-pinned-conversations': { body: globalPins },
  'replace-global-pinned-conversations': { body: globalPins, errors: ['ERR_SYSTEM_PINNED_CONVERSATIONS_LIMIT_EXCEEDED', 'ERR_UID_NOT_FOUND', 'ERR_GUID_NOT_FOUND'] },
  'get-conversation': { body: conversation, errors: ['ERR_CONVERSATION_NOT_FOUND', 'ERR_CONVERSATION_NOT_ACCESSIBLE'] },
  'delete-conversation': { body: succeededShape, errors: ['ERR_CONVERSATION_NOT_FOUND', 'ERR_CONVERSATION_NOT_ACCESSIBLE'] },
  'get-user-conversations': { body: conversation, errors: USER_CONVERSATION },
  'update-user-conversation': { body: conversation, errors: USER_CONVERSATION },
  'reset-user-conversation': { body: marked, errors: USER_CONVERSATION },
  'mark-conversation-as-delivered': { body: marked, errors: USER_CONVERSATION },
  'mark-conversation-as-read': { body: marked, errors: USER_CONVERSATION },
  'mark-conversation-as-unread': { body: marked, errors: USER_CONVERSATION },
  'pin-user-conversation': { body: conversation, errors: [...USER_CONVERSATION, 'ERR_PINNED_CONVERSATIONS_LIMIT_EXCEEDED', 'ERR_SYSTEM_PINNED_CONVERSATION'] },
  'unpin-user-conversation': { body: conversation, errors: [...USER_CONVERSATION, 'ERR_SYSTEM_PINNED_CONVERSATION'] },
  'get-group-conversations': { body: conversation, errors: GROUP_CONVERSATION },
  'update-group-conversation': { body: conversation, errors: GROUP_CONVERSATION },
  'reset-group-conversation': { body: marked, errors: GROUP_CONVERSATION },
  'mark-group-conversation-as-delivered': { body: marked, errors: GROUP_CONVERSATION },
  'mark-group-conversation-as-read': { body: marked, errors: GROUP_CONVERSATION },
  'mark-group-conversation-as-unread': { body: marked, errors: GROUP_CONVERSATION },
  'pin-group-conversation': { body: conversation, errors: [...GROUP_CONVERSATION, 'ERR_PINNED_CONVERSATIONS_LIMIT_EXCEEDED', 'ERR_SYSTEM_PINNED_CONVERSATION'] },
  'unpin-group-conversation': { body: conversation, errors: [...GROUP_CONVERSATION, 'ERR_SYSTEM_PINNED_CONVERSATION'] },
  'import-groups': { body: importAnswerShape, errors: ['ERR_IMPORT_INVALID_GROUP_FORMAT', 'ERR_IMPORT_TOO_MANY_RECORDS'] },
  'import-members': { body: importAnswerShape, errors: ['ERR_IMPORT_INVALID_MEMBER_FORMAT', 'ERR_IMPORT_TOO_MANY_RECORDS'] },
};
