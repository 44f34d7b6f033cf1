import { topics } from '@chat/contracts';
import { IMPORT_BODY_LIMIT, createServiceApp } from '@chat/http';
import { createEventPipeline } from '@chat/runtime';
import type { PlatformDeps, RunnableService } from '@chat/runtime';
import type { Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { UserReadModels } from './adapters/readModels.js';
import { RelationsApp } from './app/relations/relations.js';
import { RolesApp } from './app/roles/roles.js';
import { UserImport } from './app/users/userImport.js';
import { UsersApp } from './app/users/users.js';
import type { UsersDeps } from './app/context.js';
import { answeringRoleAccess } from './http/roles/roleAccessRoute.js';
import { usersRouter } from './http/router.js';

/** ROLE_ACCESS_BATCH_MAX uids of at most 100 characters, quoted, with room to spare. */
const ROLE_ACCESS_BATCH_BODY_LIMIT = '64kb';

/** Probes and topic settings (PlatformDeps) go on to the event pipeline. */
export interface UsersServiceDeps extends PlatformDeps {
  db: Db;
  kafka: Kafka;
  logger: Logger;
  presence?: UsersDeps['presence'];
}

/** Composition root of the users service. */
export function createUsersService(deps: UsersServiceDeps): RunnableService {
  const { db, logger } = deps;
  // The role look-ups' memory keeps users and roles while the pipeline's watch is known to keep up.
  const readModels = new UserReadModels(db, { watchCurrentAsOf: () => pipeline.watchCurrentAsOf() });
  // Commands project their own events before answering; consuming its own topic heals a read model
  // whose process died between the append and that step (the guard makes the second apply a no-op).
  const pipeline = createEventPipeline({
    ...deps,
    publishesTo: topics.users,
    consumes: [topics.users],
    consumerPurpose: 'users.read-models',
    project: (events) => readModels.apply(events),
    ownReadModels: readModels,
    // The gateway's role look-ups read users and roles from memory; every replica forgets what an event changes.
    watch: { topics: [topics.users], onEvents: (events) => readModels.observe(events) },
  });
  const appDeps: UsersDeps = { runner: pipeline.runner, readModels, ...(deps.presence ? { presence: deps.presence } : {}) };
  const users = new UsersApp(appDeps);
  const apis = { users, relations: new RelationsApp(appDeps, users), roles: new RolesApp(appDeps), userImport: new UserImport(appDeps) };

  return {
    // CometChat's documented request limit for user writes is 10 KB; a batched role refresh names up to
    // ROLE_ACCESS_BATCH_MAX uids (ADR 0104). The gateway's single role look-ups are answered in front of
    // the express app (ADR 0057).
    http: answeringRoleAccess(
      (appId, uid) => users.roleAccess(appId, uid),
      createServiceApp({
        logger,
        routers: [usersRouter(apis)],
        bodyLimit: '10kb',
        bodyLimits: { '/v3/data_import': IMPORT_BODY_LIMIT, '/internal/apps/:appId/access': ROLE_ACCESS_BATCH_BODY_LIMIT },
      }),
    ),
    async start() {
      await readModels.ensureIndexes();
      await pipeline.start();
    },
    stop: () => pipeline.stop(),
  };
}
