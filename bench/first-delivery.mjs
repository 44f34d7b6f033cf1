// node bench/first-delivery.mjs — how long a tenant's first webhook delivery takes when it turns the
// feature on in an idle stack (issue 23, ADR 0100: idle groups fetch every 3 s, watches every 5 s; a
// record must still end their fetch at once). Per trial: a new app and two users, BENCH_IDLE_SECONDS
// with nothing sent (every group idle, the webhooks group in its patient spell), a webhook on
// `message_sent` to a loopback receiver (waited for until the delivery process has it), the same idle
// wait again, then one message: from the send's start to the receiver's request. BENCH_TRIALS (5).
import { addMessageSentWebhook, startWebhookReceiver } from './fakeReceivers.mjs';
import { createGatewayClient } from './httpClient.mjs';
import { percentile, runBenchOn, startBenchStack } from './stack.mjs';

const trials = Number(process.env.BENCH_TRIALS ?? 5);
const idleMs = Number(process.env.BENCH_IDLE_SECONDS ?? 8) * 1000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const stack = await startBenchStack({ extraEnv: { TENANT_URLS_ALLOW_PRIVATE: '127.0.0.0/8' } });
await runBenchOn(stack, async () => {
  const client = createGatewayClient(stack.services.gatewayUrl);
  stack.onStop(() => client.close());
  const waits = [];
  for (let trial = 1; trial <= trials; trial++) {
    // A receiver per trial: message ids restart in each app, and the receiver keys arrivals by id.
    const receiver = await startWebhookReceiver();
    stack.onStop(receiver.close);
    const app = await stack.createApp(`first delivery ${trial}`);
    for (const uid of ['u0', 'u1']) await stack.api('POST', '/v3/users', { headers: app.chat, body: { uid, name: uid } });
    await sleep(idleMs);
    await addMessageSentWebhook(stack, app, `first-${trial}`, receiver.url, 60_000);
    await sleep(idleMs);
    const sentAt = performance.now();
    const answer = await client.request('POST', '/v3/messages', { ...app.chat, onbehalfof: 'u0' }, { receiver: 'u1', receiverType: 'user', type: 'text', data: { text: 'first' } });
    if (answer.status !== 200) throw new Error(`send: ${answer.status} ${JSON.stringify(answer.body)}`);
    const id = String(answer.body.data.id);
    const deadline = sentAt + 30_000;
    while (!receiver.arrivals.has(id) && performance.now() < deadline) await sleep(5);
    const arrived = receiver.arrivals.get(id);
    const ms = arrived === undefined ? Infinity : arrived - sentAt;
    waits.push(ms);
    console.log(`trial ${trial}: send → first delivery ${ms.toFixed(0)} ms`);
  }
  const sorted = [...waits].sort((a, b) => a - b);
  console.log(`first delivery after turning the webhook on (idle stack): p50 ${percentile(sorted, 50).toFixed(0)} ms, max ${Math.max(...waits).toFixed(0)} ms (goal p99 ≤ 500)`);
});
