import type { AuthTokenDoc } from '../projections/users/authTokens.js';
import type { RoleDoc } from '../projections/roles/roles.js';
import type { UserDoc } from '../projections/users/users.js';

export interface UserResource {
  uid: string;
  name: string;
  link?: string;
  avatar?: string;
  metadata?: Record<string, unknown>;
  status: string;
  role: string;
  statusMessage?: string;
  createdAt: number;
  updatedAt: number;
  deactivatedAt?: number;
  tags?: string[];
  authToken?: string;
  [extra: string]: unknown;
}

/** CometChat hides `metadata["@private"]` from everyone but the user and the app itself. */
export const PRIVATE_METADATA_KEY = '@private';

export interface UserViewOptions {
  withTags: boolean;
  /** The uid the caller acts as (`onBehalfOf`); private metadata is shown only to that user. */
  viewer?: string;
}

function visibleMetadata(doc: UserDoc, viewer: string | undefined): Record<string, unknown> | undefined {
  if (doc.metadata === undefined) return undefined;
  const metadata = JSON.parse(doc.metadata) as Record<string, unknown>;
  if (viewer !== undefined && viewer !== doc.uid) delete metadata[PRIVATE_METADATA_KEY];
  return metadata;
}

export function renderUser(doc: UserDoc, options: UserViewOptions = { withTags: true }): UserResource {
  const metadata = visibleMetadata(doc, options.viewer);
  return {
    uid: doc.uid,
    name: doc.name,
    ...(doc.link !== undefined ? { link: doc.link } : {}),
    ...(doc.avatar !== undefined ? { avatar: doc.avatar } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
    status: doc.status,
    role: doc.role,
    ...(doc.statusMessage !== undefined ? { statusMessage: doc.statusMessage } : {}),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    ...(doc.deactivatedAt !== undefined ? { deactivatedAt: doc.deactivatedAt } : {}),
    ...(doc.lastActiveAt !== undefined ? { lastActiveAt: doc.lastActiveAt } : {}),
    ...(options.withTags ? { tags: doc.tags } : {}),
  };
}

/**
 * Lists never show a token: only its SHA-256 is stored. They show CometChat's token shape with the
 * secret part masked (`<uid>_<seconds>…<last four>`), plus `tokenId`, which the token paths accept.
 */
export function maskedToken(doc: AuthTokenDoc): string {
  return `${doc.uid}_${doc.createdAt}${'*'.repeat(36)}${doc.tokenHint ?? '****'}`;
}

export function renderToken(doc: AuthTokenDoc, token?: string): Record<string, unknown> {
  return {
    uid: doc.uid,
    authToken: token ?? maskedToken(doc),
    tokenId: doc.tokenId,
    ...(doc.platform !== undefined ? { platform: doc.platform } : {}),
    ...(doc.deviceId !== undefined ? { deviceId: doc.deviceId } : {}),
    ...(doc.userAgent !== undefined ? { userAgent: doc.userAgent } : {}),
    // CometChat's schema types a token's `appInfo` as a string: the object the client sent, as JSON text.
    ...(doc.appInfo !== undefined ? { appInfo: doc.appInfo } : {}),
    createdAt: doc.createdAt,
    ...(doc.updatedAt !== doc.createdAt ? { updatedAt: doc.updatedAt } : {}),
  };
}

export function renderRole(doc: RoleDoc): Record<string, unknown> {
  return {
    role: doc.role,
    name: doc.name,
    ...(doc.description !== undefined ? { description: doc.description } : {}),
    ...(doc.metadata !== undefined ? { metadata: JSON.parse(doc.metadata) as unknown } : {}),
    ...(doc.settings !== undefined ? { settings: JSON.parse(doc.settings) as unknown } : {}),
    createdAt: doc.createdAt,
    ...(doc.updatedAt !== doc.createdAt ? { updatedAt: doc.updatedAt } : {}),
  };
}
