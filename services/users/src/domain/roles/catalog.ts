/**
 * The RBAC permissions and restrictable features a role can carry, in CometChat's vocabulary.
 * Pure data: the HTTP layer validates against it, the views render it.
 */
export type PermissionValue = string | string[];

export interface PermissionSpec {
  id: string;
  title: string;
  dataType: 'string' | 'stringArray';
  /** For `string`, the only accepted values; for `stringArray`, the accepted items (empty: any text). */
  availableValues: string[];
  defaultValue: PermissionValue;
}

const allowDeny = ['allow', 'deny'];
const modes = ['all', 'friends', 'roles'];
const messageTypes = ['text', 'image', 'audio', 'video', 'file'];
const categories = ['message', 'custom', 'interactive'];
const groupTypes = ['public', 'private', 'password'];
const scopes = ['admin', 'moderator', 'participant'];

const toggle = (id: string, title: string): PermissionSpec => ({ id, title, dataType: 'string', availableValues: allowDeny, defaultValue: 'allow' });
const choice = (id: string, title: string, values: string[], defaultValue: string): PermissionSpec => ({
  id,
  title,
  dataType: 'string',
  availableValues: values,
  defaultValue,
});
const list = (id: string, title: string, values: string[] = []): PermissionSpec => ({
  id,
  title,
  dataType: 'stringArray',
  availableValues: values,
  defaultValue: [],
});

export const permissionCatalog: readonly PermissionSpec[] = [
  toggle('listUsers', 'Allows/Denies listing users'),
  choice('listUsers.mode', 'Which users are listed', modes, 'all'),
  list('listUsers.allowedRoles', 'Roles whose users are listed'),
  choice('getUserDetails.mode', 'Whose details can be fetched', modes, 'all'),
  list('getUserDetails.allowedRoles', 'Roles whose details can be fetched'),
  toggle('sendMessage', 'Allows/Denies sending messages'),
  choice('sendMessage.mode', 'To whom messages can be sent', modes, 'all'),
  list('sendMessage.allowedReceiverTypes', 'Receiver types messages can be sent to', ['user', 'group']),
  list('sendMessage.allowedReceiverRoles', 'Roles of users messages can be sent to'),
  list('sendMessage.allowedMessageTypes', 'Allows sending messages of the specified types', messageTypes),
  list('sendMessage.allowedMessageCategories', 'Allows sending messages of the specified categories', categories),
  list('sendMessage.allowedMimeTypes', 'Allows sending files of the specified MIME types'),
  list('sendMessage.allowedCustomTypes', 'Allows sending custom messages of the specified types'),
  toggle('sendThreadedMessage', 'Allows/Denies replying in threads'),
  toggle('editMessage', 'Allows/Denies editing messages'),
  list('editMessage.denyForScopes', 'Group scopes that may not edit messages', scopes),
  toggle('deleteMessage', 'Allows/Denies deleting messages'),
  list('deleteMessage.denyForScopes', 'Group scopes that may not delete messages', scopes),
  toggle('addReaction', 'Allows/Denies reacting to messages'),
  toggle('initiateCall', 'Allows/Denies initiating calls'),
  choice('initiateCall.mode', 'Whom calls can be made to', modes, 'all'),
  list('initiateCall.allowedReceiverRoles', 'Roles of users calls can be made to'),
  toggle('createGroup', 'Allows/Denies creating groups'),
  list('createGroup.allowedGroupTypes', 'Group types that can be created', groupTypes),
  toggle('listGroups', 'Allows/Denies listing groups'),
  list('listGroups.allowedGroupTypes', 'Group types that are listed', groupTypes),
  toggle('joinGroup', 'Allows/Denies joining groups'),
  list('joinGroup.allowedGroupTypes', 'Group types that can be joined', groupTypes),
  list('listMessages.allowedMessageCategories', 'Message categories that are listed', categories),
  list('listMessages.allowedMessageTypes', 'Message types that are listed', messageTypes),
];

const permissionsById = new Map(permissionCatalog.map((spec) => [spec.id, spec]));

export function permissionSpec(id: string): PermissionSpec | undefined {
  return permissionsById.get(id);
}

/** Why a value is not acceptable for a permission, or null when it is. */
export function permissionValueProblem(id: string, value: unknown): string | null {
  const spec = permissionsById.get(id);
  if (!spec) return 'is not a known permission';
  if (spec.dataType === 'string') {
    return typeof value === 'string' && spec.availableValues.includes(value) ? null : `must be one of ${spec.availableValues.join(', ')}`;
  }
  if (!Array.isArray(value) || value.length > 100 || !value.every((item) => typeof item === 'string' && item.length > 0 && item.length <= 100)) {
    return 'must be an array of at most 100 non-empty strings';
  }
  const allowed = spec.availableValues;
  if (allowed.length > 0 && !value.every((item) => allowed.includes(item as string))) return `items must be among ${allowed.join(', ')}`;
  return null;
}

export interface FeatureSpec {
  key: string;
  title: string;
  path: string;
}

const feature = (key: string, title: string, path: string): FeatureSpec => ({ key, title, path });

export const featureCatalog: readonly FeatureSpec[] = [
  feature('u.listUsers', 'List Users', '/v3/users'),
  feature('u.getUser', 'Get User', '/v3/users/{{uid}}'),
  feature('u.listFriends', 'List Friends', '/v3/users/{{uid}}/friends'),
  feature('u.blockUsers', 'Block Users', '/v3/users/{{uid}}/blockedusers'),
  feature('u.listBlockedUsers', 'List Blocked Users', '/v3/users/{{uid}}/blockedusers'),
  feature('u.createGroup', 'Create Group', '/v3/groups'),
  feature('u.listGroups', 'List Groups', '/v3/groups'),
  feature('u.updateGroup', 'Update Group', '/v3/groups/{{guid}}'),
  feature('u.deleteGroup', 'Delete Group', '/v3/groups/{{guid}}'),
  feature('u.joinGroup', 'Join Group', '/v3/groups/{{guid}}/members'),
  feature('u.listGroupMembers', 'List Group Members', '/v3/groups/{{guid}}/members'),
  feature('u.sendMessage', 'Send Message', '/v3/messages'),
  feature('u.listMessages', 'List Messages', '/v3/messages'),
  feature('u.editMessage', 'Edit Message', '/v3/messages/{{id}}'),
  feature('u.deleteMessage', 'Delete Message', '/v3/messages/{{id}}'),
  feature('u.listConversations', 'List Conversations', '/v3/conversations'),
  feature('u.initiateCall', 'Initiate Call', '/v3/calls'),
];

const featuresByKey = new Map(featureCatalog.map((spec) => [spec.key, spec]));

export function featureSpec(key: string): FeatureSpec | undefined {
  return featuresByKey.get(key);
}
