// node bench/apply-promises.mjs <build root> — promises and CPU per read-your-writes apply of one new
// `MessageSent` through the messages service's 13 projections (its three read-model sets applied one
// after the other, as services/messages/src/service.ts does), each on an in-memory store, and per
// read-back of the same event (what the own-events group does with a send its request path applied: all
// answered from the runtime's memory). Promises are counted with an init hook (a count: the machine's
// load does not move it); the CPU figure (median of 5 slices of 5,000 applies) does move with the load.
// Run it once per build root (a checkout with `tsc -b` done) to compare two builds (ADR 0119).
import { createHook } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
const root = process.argv[2];
const m = await import(`${root}/packages/mongo/dist/index.js`);
const p = (f) => import(`${root}/services/messages/dist/projections/${f}.js`);
const [users, groups, scope, messages, muids, receipts, receiptFacts, imported, modSettings, review, saved, subs, inter] = await Promise.all([
  p('users'), p('groups'), p('scopePermissions'), p('messages'), p('messageMuids'), p('receiptMarks'), p('usageMetrics/receiptFacts'),
  p('dataImport/importedMuids'), p('moderation/moderationSettings'), p('moderation/reviewQueue'), p('personalMarks/savedMessages'),
  p('personalMarks/threadSubscriptions'), p('personalMarks/messageInteractions')]);
const rt = (proj) => new m.ProjectionRuntime(proj, new m.InMemoryDocumentStore());
const pick = (mod) => Object.values(mod).find((v) => v && typeof v === 'object' && Array.isArray(v.eventTypes) && typeof v.evolve === 'function');
const sets = [
  m.allOf(...[users, groups, scope, messages, muids, receipts, receiptFacts, imported].map((x) => rt(pick(x)))),
  m.allOf(...[modSettings, review].map((x) => rt(pick(x)))),
  m.allOf(...[saved, subs, inter].map((x) => rt(pick(x)))),
];
const apply = async (events) => { for (const s of sets) await s.apply(events); };
let seq = 0;
const eventOf = () => {
  const id = String(++seq);
  return { id: randomUUID(), type: 'MessageSent', schemaVersion: 1, appId: 'app1', streamId: `conversationLog-app1-c${seq}`, version: 1,
    occurredAt: new Date().toISOString(), actor: { uid: 'a', keyId: 'k', scope: 'rest' }, correlationId: 'c', causationId: null,
    data: { id, conversationId: `c${seq}`, sender: 'a', receiver: 'b', receiverType: 'user', category: 'message', type: 'text', data: { text: 'hello' }, sentAt: 1 } };
};
let promises = 0;
const hook = createHook({ init(_id, type) { if (type === 'PROMISE') promises++; } });
// Warm-up, then counts.
for (let i = 0; i < 2000; i++) { const e = eventOf(); await apply([e]); await apply([e]); }
hook.enable();
let fresh = 0, again = 0; const n = 2000;
for (let i = 0; i < n; i++) {
  const e = eventOf();
  let before = promises; await apply([e]); fresh += promises - before;
  before = promises; await apply([e]); again += promises - before;
}
hook.disable();
const time = (events) => async (k) => { const t = process.cpuUsage(); for (let i = 0; i < k; i++) await apply(events()); const u = process.cpuUsage(t); return (u.user + u.system) / k; };
const fr = [], ag = [];
for (let r = 0; r < 5; r++) {
  fr.push(await time(() => [eventOf()])(5000));
  const cached = Array.from({ length: 5000 }, () => eventOf()); for (const e of cached) await apply([e]);
  let j = 0; ag.push(await time(() => [cached[j++]])(5000));
}
const med = (a) => [...a].sort((x, y) => x - y)[2].toFixed(1);
console.log(`${root}: promises per apply of a new send ${(fresh / n).toFixed(1)}, per read-back ${(again / n).toFixed(1)}; µs (median of 5) ${med(fr)} / ${med(ag)}`);
