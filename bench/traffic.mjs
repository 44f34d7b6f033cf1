// Chat traffic through the gateway, shared by the benchmarks that send messages at scale (runtime.mjs,
// cost.mjs): users, one-on-one conversations and groups to send to, a closed loop of clients, and an
// open loop on a fixed schedule whose sampled messages are watched until the receiver sees them.
// Every request goes through a bounded client (httpClient.mjs) and every retry loop has a deadline,
// so a stalled system is counted, never waited for.
import { setTimeout as sleep } from 'node:timers/promises';
import { groupConversationId } from '../packages/contracts/dist/index.js';
import { percentile } from './percentile.mjs';
import { createVisibilityWatcher } from './visibilityWatcher.mjs';

/** A send that started this much after its scheduled time is late (the load generator fell behind). */
export const LATE_MS = 5;
/** Members per add-members request: the API's maximum. */
const MEMBERS_PER_REQUEST = 1_000;

export const ok = (answer) => answer.status === 200;
export const describe = (answer) => (answer.status === 0 ? answer.error : `${answer.status} ${answer.body?.error?.code ?? ''}`.trim());

/** Errors by cause, e.g. `3× 503 ERR_OVERLOADED, 1× timeout`. */
export function errorTally() {
  const counts = new Map();
  return {
    add(answer) {
      const key = describe(answer);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    },
    get total() {
      return [...counts.values()].reduce((a, b) => a + b, 0);
    },
    toString() {
      return counts.size === 0 ? '0 errors' : [...counts].map(([key, n]) => `${n}× ${key}`).join(', ');
    },
  };
}

export async function inParallel(items, concurrency, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await task(items[next++]);
    }),
  );
}

/** A numeric id (CometChat's are) is seen once the last message's id is at least it. */
export function atLeast(lastId, id) {
  if (lastId === undefined || lastId === null) return false;
  const numeric = /^\d+$/;
  return numeric.test(String(lastId)) && numeric.test(String(id)) ? BigInt(lastId) >= BigInt(id) : String(lastId) === String(id);
}

/**
 * @typedef {{ kind: 'user', a: string, b: string } | { kind: 'group', guid: string, members: string[] }} Target
 * @typedef {{ target: Target, sender: string, receiver: string, id: string }} Sent
 */

/** The `n`-th send to `target`: its sender and the user who should then see it. */
export function partiesOf(target, n) {
  if (target.kind === 'user') return n % 2 === 0 ? { sender: target.a, receiver: target.b } : { sender: target.b, receiver: target.a };
  const sender = target.members[n % target.members.length];
  const receiver = target.members[(n + 1) % target.members.length];
  return { sender, receiver };
}

/**
 * Traffic for one app.
 *
 * @param {object} options
 * @param {ReturnType<import('./httpClient.mjs').createGatewayClient>} options.client
 * @param {{ appid: string, apikey: string }} options.chat  the app's chat API headers
 * @param {number} [options.setupTimeoutS]  the allowance for creating users, in all
 * @param {number} [options.setupConcurrency]  set-up requests in flight
 */
export function createTraffic({ client, chat, setupTimeoutS = 600, setupConcurrency = 16 }) {
  /** A request that must succeed (set-up): retried while the services catch up, at most `patienceMs`. */
  async function must(method, path, headers, body, patienceMs = 60_000) {
    const deadline = performance.now() + patienceMs;
    for (;;) {
      const answer = await client.request(method, path, headers, body);
      if (ok(answer)) return answer.body;
      if (performance.now() >= deadline) throw new Error(`${method} ${path}: ${describe(answer)} ${JSON.stringify(answer.body ?? '')}`);
      await sleep(100);
    }
  }

  /**
   * Creates users through POST /users, each tried up to three times, for at most `setupTimeoutS` in
   * all; resolves with the uids created (or already there). `strict`: fail unless every one was.
   */
  async function createUsers(uids, { strict = true } = {}) {
    const created = [];
    const errors = errorTally();
    const deadline = performance.now() + setupTimeoutS * 1000;
    await inParallel(uids, setupConcurrency, async (uid) => {
      for (let attempt = 1; attempt <= 3; attempt++) {
        if (performance.now() >= deadline) return void errors.add({ status: 0, error: `not tried: past the ${setupTimeoutS} s set-up allowance` });
        const answer = await client.request('POST', '/v3/users', chat, { uid, name: uid });
        if (ok(answer) || answer.body?.error?.code === 'ERR_UID_ALREADY_EXISTS') return void created.push(uid);
        if (attempt === 3) errors.add(answer);
        else await sleep(200 * attempt);
      }
    });
    if (errors.total > 0) {
      if (strict) throw new Error(`POST /v3/users: ${errors.total} of ${uids.length} users could not be created (${errors})`);
      console.log(`  ${errors.total} of ${uids.length} users could not be created (${errors})`);
    }
    return new Set(created);
  }

  /**
   * Adds `uids` to a group, MEMBERS_PER_REQUEST at a time, retrying the uids the conversations service
   * does not know yet (its users projection may lag) until `patienceMs` is spent. Resolves with the
   * number of members added.
   */
  async function addMembers(guid, uids, patienceMs) {
    const deadline = performance.now() + patienceMs;
    let missing = [...uids];
    while (missing.length > 0) {
      const refused = [];
      for (let i = 0; i < missing.length; i += MEMBERS_PER_REQUEST) {
        const chunk = missing.slice(i, i + MEMBERS_PER_REQUEST);
        const answer = await client.request('POST', `/v3/groups/${guid}/members`, chat, { participants: chunk });
        const outcomes = ok(answer) ? (answer.body.data.participants ?? {}) : {};
        for (const uid of chunk) {
          const outcome = outcomes[uid];
          if (!outcome || !(outcome.success || outcome.error?.code === 'ERR_ALREADY_JOINED')) refused.push(uid);
        }
      }
      missing = refused;
      if (missing.length === 0 || performance.now() >= deadline) break;
      await sleep(500);
    }
    return uids.length - missing.length;
  }

  function send(/** @type {Target} */ target, sender, text) {
    const body =
      target.kind === 'user'
        ? { receiver: sender === target.a ? target.b : target.a, receiverType: 'user', type: 'text', data: { text } }
        : { receiver: target.guid, receiverType: 'group', type: 'text', data: { text } };
    return client.request('POST', '/v3/messages', { ...chat, onbehalfof: sender }, body);
  }

  /** One poll: does the receiver's view of the conversation show `sent` (or a later message) as its last? */
  async function isVisible(/** @type {Sent} */ sent) {
    const path = sent.target.kind === 'user' ? `/v3/users/${sent.sender}/conversation` : `/v3/conversations/${groupConversationId(sent.target.guid)}`;
    const answer = await client.request('GET', path, { ...chat, onbehalfof: sent.receiver });
    return ok(answer) && atLeast(answer.body?.data?.lastMessage?.id, sent.id);
  }

  /**
   * Creates the users, `pairs` one-on-one conversations and `groups` groups of `groupSize`, then sends
   * one warm-up message to each (the messages service learns users and memberships from events, so a
   * first send waits for them). Resolves with the targets to send to.
   *
   * @param {{ prefix: string, pairs: number, groups: number, groupSize: number, patienceMs: number }} shape
   * @returns {Promise<Target[]>}
   */
  async function createTargets({ prefix, pairs, groups, groupSize, patienceMs }) {
    const uids = Array.from({ length: Math.max(2 * pairs, groups * groupSize) }, (_, i) => `${prefix}${String(i).padStart(3, '0')}`);
    await createUsers(uids);
    /** @type {Target[]} */
    const targets = Array.from({ length: pairs }, (_, i) => ({ kind: 'user', a: uids[2 * i], b: uids[2 * i + 1] }));
    for (let g = 0; g < groups; g++) {
      const guid = `${prefix}group-${g}`;
      const members = uids.slice(g * groupSize, (g + 1) * groupSize);
      await must('POST', '/v3/groups', { ...chat, onbehalfof: members[0] }, { guid, name: guid, type: 'public' });
      const added = await addMembers(guid, members.slice(1), patienceMs);
      if (added !== members.length - 1) throw new Error(`${guid}: only ${added} of ${members.length - 1} members could be added`);
      targets.push({ kind: 'group', guid, members });
    }
    await inParallel(targets, setupConcurrency, async (target) => {
      const { sender } = partiesOf(target, 0);
      const deadline = performance.now() + 60_000;
      for (;;) {
        const answer = await send(target, sender, 'warm-up');
        if (ok(answer)) return;
        if (performance.now() >= deadline) throw new Error(`warm-up send to ${target.guid ?? target.b}: ${describe(answer)}`);
        await sleep(100);
      }
    });
    return targets;
  }

  /**
   * Closed loop: `clients` clients, each sending as soon as its previous send is answered, for `seconds`.
   * Every non-200 answer and every timeout is an error.
   */
  async function sustainedSends(targets, { clients, seconds }) {
    const latencies = [];
    const errors = errorTally();
    let next = 0;
    const started = performance.now();
    const end = started + seconds * 1000;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < end) {
          const n = next++;
          const target = targets[n % targets.length];
          const { sender } = partiesOf(target, Math.floor(n / targets.length));
          const t0 = performance.now();
          const answer = await send(target, sender, `sustained ${n}`);
          if (ok(answer)) latencies.push(performance.now() - t0);
          else errors.add(answer);
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return { perSecond: latencies.length / elapsed, sent: latencies.length, errors, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  }

  /**
   * Open loop: sends started on a fixed schedule at `rate` for `seconds` (a send that could not start
   * on time is counted as late), times from the scheduled send; a sample of `visibleSamplesPerSecond`
   * is watched (bench/visibilityWatcher.mjs, `pollBudgetPerSecond`) until the receiver's conversation
   * shows it, at most `visibleTimeoutS` after its answer. `onAnswered` sees every accepted send
   * (`{ id, target, scheduledAt, answeredAt }`), for figures timed elsewhere (Kafka, webhooks, push);
   * `onVisible` every watched one once seen (`{ id, scheduledAt, answeredAt, seenAt }`).
   */
  async function openLoop(targets, rate, { seconds, visibleSamplesPerSecond, pollBudgetPerSecond, visibleTimeoutS, onAnswered = () => undefined, onVisible = () => undefined }) {
    const total = Math.round(rate * seconds);
    const sampleEvery = Math.max(1, Math.round(rate / visibleSamplesPerSecond));
    const watcher = createVisibilityWatcher({ isVisible, budgetPerSecond: pollBudgetPerSecond });
    const sendTimes = [];
    const visibleTimes = [];
    const errors = errorTally();
    let late = 0;
    let notVisible = 0;
    const inFlight = [];
    const started = performance.now();
    for (let i = 0; i < total; i++) {
      const scheduledAt = started + (i * 1000) / rate;
      const wait = scheduledAt - performance.now();
      if (wait > 1) await sleep(wait);
      if (performance.now() - scheduledAt > LATE_MS) late += 1;
      const target = targets[i % targets.length];
      const parties = partiesOf(target, Math.floor(i / targets.length));
      inFlight.push(
        (async () => {
          const answer = await send(target, parties.sender, `open ${rate} ${i}`);
          const answeredAt = performance.now();
          if (!ok(answer)) return errors.add(answer);
          sendTimes.push(answeredAt - scheduledAt);
          onAnswered({ id: String(answer.body.data.id), target, scheduledAt, answeredAt });
          if (i % sampleEvery !== 0) return;
          const seenAt = await watcher.watch({ target, ...parties, id: answer.body.data.id }, answeredAt + visibleTimeoutS * 1000);
          if (seenAt === null) notVisible += 1;
          else {
            visibleTimes.push(seenAt - scheduledAt);
            onVisible({ id: String(answer.body.data.id), scheduledAt, answeredAt, seenAt });
          }
        })(),
      );
    }
    const scheduleSeconds = (performance.now() - started) / 1000;
    await Promise.all(inFlight);
    await watcher.stop();
    const elapsed = (performance.now() - started) / 1000;
    sendTimes.sort((a, b) => a - b);
    visibleTimes.sort((a, b) => a - b);
    return {
      rate,
      offered: total,
      achieved: sendTimes.length / scheduleSeconds,
      errors,
      late,
      sendP50: percentile(sendTimes, 50),
      sendP99: percentile(sendTimes, 99),
      visibleP50: percentile(visibleTimes, 50),
      visibleP99: percentile(visibleTimes, 99),
      samples: visibleTimes.length,
      /** The sample's times, sorted (for figures pooled over several loops). */
      visibleTimes,
      notVisible,
      pollsPerSecond: watcher.polls() / elapsed,
    };
  }

  return { must, createUsers, addMembers, send, isVisible, createTargets, sustainedSends, openLoop };
}
