// node bench/time-travel.mjs — what a time-travel read (`asOf`, ADR 0033) costs against the live read, in
// the same run: one one-on-one conversation grows to each size in BENCH_EVENTS (one send = one event, one
// commit), and at each size the message list (100 messages) and the conversation are read live and as of
// now (the whole history replayed), BENCH_READS times each, one at a time. Prints p50/p99 in ms and the
// time-travel read's p50 per 1,000 events replayed. Asserts nothing.
import { percentile, startBenchStack } from './stack.mjs';

const SIZES = (process.env.BENCH_EVENTS ?? '100,1000,3000').split(',').map(Number);
const READS = Number(process.env.BENCH_READS ?? 20);
const SEND_CONCURRENCY = 8;

// The cap is lifted so the bench can measure past the default (2,000 events), which these figures chose.
const { api, app, stop } = await startBenchStack({ name: 'bench time travel', extraEnv: { TIME_TRAVEL_MAX_EVENTS: '100000' } });
const { chat } = app;

try {
  for (const uid of ['alice', 'bob']) await api('POST', '/v3/users', { headers: chat, body: { uid, name: uid } });
  const as = (uid) => ({ ...chat, onbehalfof: uid });

  /** Sends until the conversation holds `total` messages (sends are concurrent; the stream orders them). */
  let sent = 0;
  async function growTo(total) {
    const worker = async () => {
      while (sent < total) {
        sent += 1;
        await api('POST', '/v3/messages', { headers: as('alice'), body: { receiver: 'bob', receiverType: 'user', type: 'text', data: { text: `m${sent}` } } });
      }
    };
    await Promise.all(Array.from({ length: SEND_CONCURRENCY }, worker));
  }

  /** `READS` sequential reads of `path`; their latencies in ms, ascending. */
  async function timed(path, uid) {
    const latencies = [];
    for (let i = 0; i < READS; i++) {
      const start = performance.now();
      await api('GET', path, { headers: as(uid) });
      latencies.push(performance.now() - start);
    }
    return latencies.sort((a, b) => a - b);
  }

  const row = (label, live, past, events) => {
    const [l50, l99, p50, p99] = [percentile(live, 50), percentile(live, 99), percentile(past, 50), percentile(past, 99)];
    const perThousand = (p50 / events) * 1000;
    console.log(
      `${String(events).padStart(6)} events  ${label.padEnd(13)} live p50 ${l50.toFixed(1).padStart(7)} p99 ${l99.toFixed(1).padStart(7)} ms` +
        `   asOf p50 ${p50.toFixed(1).padStart(8)} p99 ${p99.toFixed(1).padStart(8)} ms   asOf p50 per 1,000 events ${perThousand.toFixed(0)} ms`,
    );
  };

  console.log(`time-travel reads: ${READS} reads each, sizes ${SIZES.join(', ')}`);
  for (const size of SIZES) {
    await growTo(size);
    // As of now: the whole history is replayed (the most a read of this conversation can cost).
    const now = () => Date.now();
    const list = await timed('/v3/users/bob/messages?perPage=100', 'alice');
    const listAsOf = await timed(`/v3/users/bob/messages?perPage=100&asOf=${now()}`, 'alice');
    row('message list', list, listAsOf, size);
    const conversation = await timed('/v3/users/alice/conversation', 'bob');
    const conversationAsOf = await timed(`/v3/users/alice/conversation?asOf=${now()}`, 'bob');
    row('conversation', conversation, conversationAsOf, size);
  }
} finally {
  await stop();
}
