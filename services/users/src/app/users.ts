import { createHash, randomBytes } from 'node:crypto';
import { ApiError, epochSeconds } from '@chat/contracts';
import type { Actor } from '@chat/contracts';
import { handleCommand } from '@chat/eventsourcing';
import type { CommitStore, EventPublisher } from '@chat/eventsourcing';
import type { Logger } from 'pino';
import type { UserReadModels } from '../adapters/readModels.js';
import { userDecider, userStream } from '../domain/user.js';
import type { NewAuthToken, UserProfile } from '../domain/user.js';
import type { UserDoc } from '../projections/users.js';

export interface UsersDeps {
  store: CommitStore;
  publisher: EventPublisher;
  readModels: UserReadModels;
  logger: Logger;
  clock?: () => Date;
}

export interface RequestContext {
  actor: Actor;
  requestId: string;
}

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
  updatedAt?: number;
  tags?: string[];
  authToken?: string;
}

export interface IssuedToken {
  token: string;
  spec: NewAuthToken;
}

/**
 * CometChat's token shape (`<uid>_<seconds><40 hex>`). Only its SHA-256 is stored and published,
 * so neither a leaked database nor the event stream yields a usable token.
 */
export function issueAuthToken(uid: string, now: Date, platform?: string, deviceId?: string): IssuedToken {
  const token = `${uid}_${epochSeconds(now)}${randomBytes(20).toString('hex')}`;
  const tokenId = createHash('sha256').update(token).digest('hex');
  return {
    token,
    spec: {
      tokenId,
      ...(platform !== undefined ? { platform } : {}),
      ...(deviceId !== undefined ? { deviceId } : {}),
    },
  };
}

export function renderUser(doc: UserDoc): UserResource {
  return {
    uid: doc.uid,
    name: doc.name,
    ...(doc.link !== undefined ? { link: doc.link } : {}),
    ...(doc.avatar !== undefined ? { avatar: doc.avatar } : {}),
    ...(doc.metadata !== undefined ? { metadata: JSON.parse(doc.metadata) as Record<string, unknown> } : {}),
    status: doc.status,
    role: doc.role,
    ...(doc.statusMessage !== undefined ? { statusMessage: doc.statusMessage } : {}),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    tags: doc.tags,
  };
}

export class UsersApp {
  private readonly clock: () => Date;

  constructor(private readonly deps: UsersDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  private options() {
    return {
      publisher: this.deps.publisher,
      onPublishError: (err: unknown) => this.deps.logger.warn({ err }, 'publish deferred to relay'),
    };
  }

  async createUser(context: RequestContext, profile: UserProfile, withAuthToken: boolean): Promise<UserResource> {
    const now = this.clock();
    const issued = withAuthToken ? issueAuthToken(profile.uid, now) : undefined;
    const result = await handleCommand(
      this.deps.store,
      userDecider,
      userStream(context.actor.appId, profile.uid),
      { type: 'CreateUser', profile, ...(issued ? { authToken: issued.spec } : {}), now: epochSeconds(now) },
      { appId: context.actor.appId, actor: context.actor, correlationId: context.requestId, now },
      this.options(),
    );
    for (const event of result.events) await this.deps.readModels.apply(event);
    const doc = await this.deps.readModels.findUser(context.actor.appId, profile.uid);
    if (!doc) throw new Error(`user ${profile.uid} missing from the read model right after its creation`);
    return { ...renderUser(doc), ...(issued ? { authToken: issued.token } : {}) };
  }

  async getUser(context: RequestContext, uid: string): Promise<UserResource> {
    const doc = await this.deps.readModels.findUser(context.actor.appId, uid);
    if (!doc) throw new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${uid} does not exist.`);
    return renderUser(doc);
  }

  async listUsers(context: RequestContext, page: number, perPage: number) {
    const { total, items } = await this.deps.readModels.listUsers(context.actor.appId, page, perPage);
    return {
      data: items.map(renderUser),
      meta: {
        pagination: {
          total,
          count: items.length,
          per_page: perPage,
          current_page: page,
          total_pages: Math.max(1, Math.ceil(total / perPage)),
        },
      },
    };
  }

  async createAuthToken(context: RequestContext, uid: string) {
    const now = this.clock();
    const issued = issueAuthToken(uid, now);
    await handleCommand(
      this.deps.store,
      userDecider,
      userStream(context.actor.appId, uid),
      { type: 'CreateAuthToken', uid, authToken: issued.spec, now: epochSeconds(now) },
      { appId: context.actor.appId, actor: context.actor, correlationId: context.requestId, now },
      this.options(),
    );
    return { uid, authToken: issued.token, createdAt: epochSeconds(now) };
  }
}
