declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

export type AppId = Brand<string, 'AppId'>;
export type Uid = Brand<string, 'Uid'>;

/** CometChat: up to 100 characters of a-z, 0-9, '-' and '_'; ids are forced to lower case. */
export const UID_PATTERN = /^[a-z0-9_-]{1,100}$/;
/** App ids we generate are lower-case alphanumerics; accept the same shape on input. */
export const APP_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

export function normalizeUid(raw: string): string {
  return raw.toLowerCase();
}

export function isUid(raw: string): raw is Uid {
  return UID_PATTERN.test(raw);
}

export function Uid(raw: string): Uid {
  const value = normalizeUid(raw);
  if (!isUid(value)) throw new TypeError(`not a valid uid: ${raw}`);
  return value;
}

export function AppId(raw: string): AppId {
  if (!APP_ID_PATTERN.test(raw)) throw new TypeError(`not a valid app id: ${raw}`);
  return raw as AppId;
}

/**
 * One-on-one conversation id: `<uid_a>_user_<uid_b>` with the two uids in ascending code-unit order,
 * the order CometChat's own examples show (`cometchat-uid-2_user_cometchat-uid-4`). Both participants
 * therefore address the same conversation by the same id.
 */
export function userConversationId(a: string, b: string): string {
  return a < b ? `${a}_user_${b}` : `${b}_user_${a}`;
}

export function groupConversationId(guid: string): string {
  return `group_${guid}`;
}
