import { setTimeout as sleep } from 'node:timers/promises';
import { operationsGatedBy } from '@chat/contracts';
import { startExtraGateway } from '@chat/devstack';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp, eventually } from './support/api.js';
import type { ApiResponse, TestApp } from './support/api.js';
import { mapBounded } from './support/concurrency.js';
import { done, sendWhenAllowed, text } from './support/messages.js';

/**
 * Restricted features (`POST /roles/{role}/restrictedfeatures`) through the gateway: one role and one
 * user per feature key, all restricted at once. Each user is refused the feature's operation on its own
 * behalf with CometChat's RBAC refusal, while a user of another role, the app itself (no onBehalfOf)
 * and the same user on another feature's operation are not; allowing the feature again lets the user
 * through within the gateway's 1 s role-cache bound — on the suite's gateway and on a second replica
 * started here, each with its own cache.
 */

/** The features' keys, as the users service's catalogue lists them (`GET /roles/{role}/restrictedfeatures`). */
const features = [
  'u.listUsers',
  'u.getUser',
  'u.listFriends',
  'u.blockUsers',
  'u.listBlockedUsers',
  'u.createGroup',
  'u.listGroups',
  'u.updateGroup',
  'u.deleteGroup',
  'u.joinGroup',
  'u.listGroupMembers',
  'u.sendMessage',
  'u.listMessages',
  'u.editMessage',
  'u.deleteMessage',
  'u.listConversations',
  'u.initiateCall',
] as const;
type Feature = (typeof features)[number];

/** The gateway's role cache bound (ADR 0041), plus one refused attempt's round trip and one poll interval. */
const BOUND_MS = 1_000;
const SLACK_MS = 250;

let app: TestApp;
let replica: { url: string; stop(): Promise<void> } | undefined;
/** Per acting user: the group it owns and one message it sent. */
const owned = new Map<string, { guid: string; messageId: string }>();
let serial = 0;

const userOf = (feature: Feature) => `r-${feature.slice(2).toLowerCase()}`;
const roleOf = (feature: Feature) => `role-${feature.slice(2).toLowerCase()}`;
const FREE = 'free-user'; // the default role, which restricts nothing

interface Request {
  method: string;
  path: string;
  body?: unknown;
}

/**
 * One operation the feature gates, as `actor` makes it (undefined: the app itself). Destructive ones
 * name the actor's own group or message, and one that does not exist for anyone else (or for the
 * actor too, `ghost`), so the probes that must not be refused leave the restricted user's fixtures in
 * place.
 */
function operationOf(feature: Feature, actor: string | undefined, ghost = false): Request {
  const mine = actor === undefined || ghost ? undefined : owned.get(actor);
  const self = actor ?? 'peer';
  switch (feature) {
    case 'u.listUsers':
      return { method: 'GET', path: '/v3/users' };
    case 'u.getUser':
      return { method: 'GET', path: '/v3/users/peer' };
    case 'u.listFriends':
      return { method: 'GET', path: `/v3/users/${self}/friends` };
    case 'u.blockUsers':
      return { method: 'POST', path: `/v3/users/${self}/blockedusers`, body: { blockedUids: ['blockee'] } };
    case 'u.listBlockedUsers':
      return { method: 'GET', path: `/v3/users/${self}/blockedusers` };
    case 'u.createGroup':
      return { method: 'POST', path: '/v3/groups', body: { guid: `made-${++serial}`, name: 'Made', type: 'public', ...(actor ? {} : { owner: 'peer' }) } };
    case 'u.listGroups':
      return { method: 'GET', path: '/v3/groups' };
    case 'u.updateGroup':
      return { method: 'PUT', path: `/v3/groups/${mine?.guid ?? (actor === undefined ? 'open' : 'no-such-group')}`, body: { description: 'renamed' } };
    case 'u.deleteGroup':
      return { method: 'DELETE', path: `/v3/groups/${mine?.guid ?? 'no-such-group'}` };
    case 'u.joinGroup':
      return { method: 'POST', path: `/v3/groups/${ghost ? 'no-such-group' : 'open'}/members`, body: { participants: [self] } };
    case 'u.listGroupMembers':
      return { method: 'GET', path: '/v3/groups/open/members' };
    case 'u.sendMessage':
      return { method: 'POST', path: '/v3/messages', body: text('peer', 'hello') };
    case 'u.listMessages':
      return { method: 'GET', path: '/v3/users/peer/messages' };
    case 'u.editMessage':
      return { method: 'PUT', path: `/v3/messages/${mine?.messageId ?? '999999999'}`, body: { data: { text: 'edited' } } };
    case 'u.deleteMessage':
      return { method: 'DELETE', path: `/v3/messages/${mine?.messageId ?? '999999999'}` };
    case 'u.listConversations':
      return { method: 'GET', path: '/v3/conversations' };
    case 'u.initiateCall': {
      const call = { action: 'initiated', sessionId: `call-${++serial}` };
      return { method: 'POST', path: '/v3/messages', body: { receiver: 'peer', receiverType: 'user', category: 'call', type: 'audio', data: call } };
    }
  }
}

/** `viaReplica`: through the second gateway, on nothing the actor owns (its fixtures stay for the first). */
function attempt(feature: Feature, actor: string | undefined, viaReplica = false): Promise<ApiResponse> {
  const { method, path, body } = operationOf(feature, actor, viaReplica);
  return app.call(method, path, {
    ...(actor !== undefined ? { onBehalfOf: actor } : {}),
    ...(body !== undefined ? { body } : {}),
    ...(viaReplica ? { baseUrl: replica!.url } : {}),
  });
}

const refused = (r: ApiResponse) => r.status === 403 && r.body?.error?.code === 'ERR_PERMISSION_DENIED';

/** Read-only features: probing one changes no fixture another check needs. */
const readOnly: readonly Feature[] = ['u.listUsers', 'u.getUser', 'u.listFriends', 'u.listBlockedUsers', 'u.listGroups', 'u.listGroupMembers', 'u.listMessages', 'u.listConversations'];

/** A read-only feature whose operations share none with `feature`'s, to show a restriction refuses its own operations only. */
function unrelatedTo(feature: Feature): Feature {
  const own = new Set(operationsGatedBy(feature));
  const other = readOnly.find((candidate) => candidate !== feature && !operationsGatedBy(candidate).some((operationId) => own.has(operationId)));
  if (!other) throw new Error(`no feature unrelated to ${feature}`);
  return other;
}

beforeAll(async () => {
  replica = await startExtraGateway({
    serviceUrls: inject('serviceUrls'),
    redisUrl: inject('redisUrl'),
    managementKey: inject('managementKey'),
    managementSecret: inject('managementSecret'),
    env: {},
  });
  app = await createApp('restricted features');
  await mapBounded(features, 8, (feature) => done(app.call('POST', '/v3/roles', { body: { role: roleOf(feature), name: feature } })));
  const actors = [...features.map(userOf), FREE];
  await mapBounded(['peer', 'blockee'], 2, (uid) => done(app.call('POST', '/v3/users', { body: { uid, name: uid } })));
  // Assigning the role: each user is created with its feature's role.
  await mapBounded(features, 8, (feature) => done(app.call('POST', '/v3/users', { body: { uid: userOf(feature), name: feature, role: roleOf(feature) } })));
  await done(app.call('POST', '/v3/users', { body: { uid: FREE, name: 'Free' } }));
  await done(app.call('POST', '/v3/groups', { body: { guid: 'open', name: 'Open', type: 'public', owner: 'peer' } }));
  // Every service knows every actor (users' events reach them asynchronously) before anything is timed.
  await mapBounded(actors, 8, async (uid) => {
    const guid = `g-${uid}`;
    const group = await eventually(
      () => app.call('POST', '/v3/groups', { body: { guid, name: guid, type: 'public', owner: uid } }),
      (r) => r.status === 200,
    );
    expect(group.status, JSON.stringify(group.body)).toBe(200);
    const sent = await sendWhenAllowed(app, uid, text('peer', 'mine'));
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    owned.set(uid, { guid, messageId: String(sent.body.data.id) });
  });
}, 60_000);

afterAll(async () => {
  await replica?.stop();
});

describe('restricted features', () => {
  it('refuse each feature to its role within 1 s, and only there; allowed again within 1 s', async () => {
    // Warm every acting user's role entry in both gateways (a gated call), so the bound below is the caches'.
    await mapBounded(features, 17, async (feature) => {
      for (const viaReplica of [false, true]) expect(refused(await attempt('u.getUser', userOf(feature), viaReplica))).toBe(false);
    });

    const restricted = await mapBounded(features, 17, (feature) =>
      app.call('POST', `/v3/roles/${roleOf(feature)}/restrictedfeatures`, { body: { featuresToRestrict: [feature] } }),
    );
    for (const [index, response] of restricted.entries()) expect(response.body.data[features[index]!].success).toBe(true);
    await sleep(BOUND_MS + 100);

    const problems = (
      await mapBounded(features, 8, async (feature) => {
        const found: string[] = [];
        for (const viaReplica of [false, true]) {
          const own = await attempt(feature, userOf(feature), viaReplica);
          const where = viaReplica ? ' (second gateway)' : '';
          if (!refused(own)) found.push(`${feature}: its role's user was not refused${where}: ${own.status} ${JSON.stringify(own.body)}`);
          else if (!String(own.body.error.message).includes(feature)) found.push(`${feature}: the refusal does not name the feature: ${own.body.error.message}`);
        }
        for (const [who, actor, probe] of [
          ['a user of another role', FREE, feature],
          ['the app itself', undefined, feature],
          ['its user on another feature', userOf(feature), unrelatedTo(feature)],
        ] as const) {
          const r = await attempt(probe, actor);
          if (refused(r) || r.status >= 500) found.push(`${feature}: ${who} (${probe}) got ${r.status} ${JSON.stringify(r.body)}`);
        }
        return found;
      })
    ).flat();
    expect(problems).toEqual([]);

    // Each feature is timed from the answer to its own allow, on both gateways at once.
    const reopened = await mapBounded(features, 17, async (feature) => {
      await done(app.call('DELETE', `/v3/roles/${roleOf(feature)}/restrictedfeatures`, { body: { featuresToAllow: [feature] } }));
      const allowedAt = Date.now();
      // Timed to the start of the first attempt let through: the gateway decides when a request arrives,
      // and how long the operation itself then takes (a send under load) is not the role cache's bound.
      const timed = async (viaReplica: boolean) => {
        let startedAt = allowedAt;
        const r = await eventually(
          () => {
            startedAt = Date.now();
            return attempt(feature, userOf(feature), viaReplica);
          },
          (answer) => !refused(answer),
          5_000,
        );
        return { feature, viaReplica, afterMs: startedAt - allowedAt, tookMs: Date.now() - startedAt, status: r.status, body: r.body as unknown };
      };
      return Promise.all([timed(false), timed(true)]);
    });
    const times = (viaReplica: boolean) => reopened.flat().filter((r) => r.viaReplica === viaReplica).map((r) => r.afterMs).sort((a, b) => a - b);
    console.log(`restricted features: allowed again after ${times(false).join(', ')} ms; on the second gateway after ${times(true).join(', ')} ms`);
    console.log(`restricted features: the first allowed attempts took ${reopened.flat().map((r) => r.tookMs).sort((a, b) => a - b).join(', ')} ms`);
    for (const r of reopened.flat()) {
      const where = `${r.feature}${r.viaReplica ? ' (second gateway)' : ''}: ${JSON.stringify(r.body)}`;
      // The first gateway works on the user's own group and message; the second on ones that do not exist.
      if (r.viaReplica) expect(r.status, where).toBeLessThan(500);
      else expect(r.status, where).toBe(200);
      expect(r.afterMs, where).toBeLessThan(BOUND_MS + SLACK_MS);
    }
  }, 60_000);
});
