// What sealing stored Idempotency-Key answers (ADR 0039) costs the gateway per request, in-process:
// the first request derives the key (HKDF) and seals the answer; a replay derives it and opens it.
// Measured against the same work without sealing (JSON of the answer, as stored before), per size.
//
//   node bench/idempotency-seal.mjs [iterations]   (needs `tsc -b`; no infrastructure)
import { randomUUID } from 'node:crypto';
import { openReplay, replayKey, sealReplay } from '@chat/gateway';
import { percentile } from './percentile.mjs';

const iterations = Number(process.argv[2] ?? 20_000);
const sizes = [300, 4 * 1024, 64 * 1024];

function answerOf(bytes) {
  return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.alloc(bytes, 'a').toString('base64') };
}

/** Per-call microseconds of `work`, after a warm-up: p50 and p99 over batches of 100 calls. */
function measure(work) {
  for (let i = 0; i < 2_000; i++) work(i);
  const samples = [];
  for (let batch = 0; batch < iterations / 100; batch++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < 100; i++) work(i);
    samples.push(Number(process.hrtime.bigint() - started) / 1_000 / 100);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

const scopes = Array.from({ length: 100 }, () => ({ appId: 'app1', keyId: 'key1', idempotencyKey: randomUUID() }));
const context = 'gateway:idem:app1:key1:0123456789abcdef';
const rows = [];
for (const size of sizes) {
  const answer = answerOf(size);
  const sealedOnce = sealReplay(replayKey(scopes[0]), Buffer.from(JSON.stringify(answer)), context);
  const plainOnce = JSON.stringify({ state: 'done', fingerprint: 'f', response: answer });
  const unsealedFirst = measure(() => JSON.stringify({ state: 'done', fingerprint: 'f', response: answer }));
  const sealedFirst = measure((i) => JSON.stringify({ state: 'done', fingerprint: 'f', sealed: sealReplay(replayKey(scopes[i % 100]), Buffer.from(JSON.stringify(answer)), context) }));
  const unsealedReplay = measure(() => JSON.parse(plainOnce).response);
  const sealedReplay = measure(() => JSON.parse(openReplay(replayKey(scopes[0]), sealedOnce, context).toString('utf8')));
  rows.push({ size, unsealedFirst, sealedFirst, unsealedReplay, sealedReplay });
}
const f = (m) => `${m.p50.toFixed(1)}/${m.p99.toFixed(1)}`;
console.log(`µs per request, p50/p99 over batches of 100 (${iterations} calls each)`);
console.log('answer bytes | first: unsealed  sealed | replay: unsealed  sealed');
for (const r of rows) console.log(`${String(r.size).padStart(12)} | ${f(r.unsealedFirst).padStart(15)} ${f(r.sealedFirst).padStart(8)} | ${f(r.unsealedReplay).padStart(16)} ${f(r.sealedReplay).padStart(8)}`);
const hkdf = measure((i) => replayKey(scopes[i % 100]));
console.log(`key derivation alone (HKDF-SHA256): ${f(hkdf)} µs`);
