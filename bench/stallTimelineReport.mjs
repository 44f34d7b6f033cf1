// node bench/stallTimelineReport.mjs <dir> — reads what bench/stall-timeline.mjs recorded in <dir> and prints
// the stalls (ADR 0155): the sends whose answer, arrival on Kafka or visibility took ≥ BENCH_STALL_MS (100)
// from their scheduled time, grouped into episodes (less than 1 s apart), each with every recorded event
// from 500 ms before it to its end; then, per kind of event, how many episodes it overlaps and how many of
// its events fell outside any episode (a kind that is everywhere explains nothing).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const STALL_MS = Number(process.env.BENCH_STALL_MS ?? 100);
const read = (name) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : '');
const sends = JSON.parse(read('sends.json') || '[]');
const loops = JSON.parse(read('loops.json') || '[]');
const info = JSON.parse(read('processes.json') || '{"processes":[],"storeFds":{}}');
const nameOfPid = new Map(info.processes.map((p) => [p.pid, p.name]));
if (info.bench) nameOfPid.set(info.bench, 'bench');
if (info.machineProbe) nameOfPid.set(info.machineProbe, 'machine probe');

/** Every event: { kind, start, end, text }. */
const events = [];
// The store's slow commands.
for (const line of read('store.log').split('\n')) {
  const m = /slow command: at (\d+)\.(\d+) waited ([\d.]+) ms ran ([\d.]+) ms (.*)$/.exec(line);
  if (!m) continue;
  const start = Number(m[1]) + Number(m[2]) / 1000;
  const waited = Number(m[3]);
  const ran = Number(m[4]);
  events.push({ kind: ran >= 100 ? 'store command ran ≥100 ms' : 'store command waited/ran ≥50 ms', start, end: start + waited + ran, text: `store: waited ${waited} ran ${ran} ms ${m[5]}` });
}
// Every fsync on the machine (perf trace -T: CLOCK_MONOTONIC ms); the runner's named by file.
const storeThreads = new Set(info.storeThreads ?? []);
for (const line of read('fsync.txt').split('\n')) {
  const m = /^\s*([\d.]+) \(\s*([\d.]+) ms\): (.+?)\/(\d+) (fsync|fdatasync)\(fd: (\d+)/.exec(line);
  // perf prints 2^64 ns less a little for a call whose entry it missed (a wrapped negative): no duration known.
  if (!m || Number(m[2]) > 3_600_000) continue;
  const start = Number(m[1]) + info.monotonicToEpoch;
  const took = Number(m[2]);
  const tid = Number(m[4]);
  const ours = storeThreads.has(tid);
  const who = ours ? `store ${(info.storeFds[m[6]] ?? `fd ${m[6]}`).split('/').pop()}` : `${m[3]}/${tid}`;
  const kind = `${ours ? 'store' : 'other'} fsync${took >= 20 ? ' ≥20 ms' : ''}`;
  events.push({ kind, start, end: start + took, text: `${m[5]} ${who} ${took.toFixed(1)} ms` });
}
// The services' event-loop stalls and GC pauses.
for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl') && f !== 'machine.jsonl')) {
  for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
    if (!line) continue;
    const r = JSON.parse(line);
    const kind = r.kind === 'gc' ? (r.ms >= 20 ? 'service GC ≥20 ms' : 'service GC') : r.ms >= 50 ? 'service loop late ≥50 ms' : 'service loop late';
    events.push({ kind, start: r.at, end: r.at + r.ms, text: `${r.service} ${r.kind === 'gc' ? `GC (${r.gc}) ${r.ms} ms` : `event loop ${r.ms} ms late`}` });
  }
}
// The broker's safepoints and GC pauses.
for (const line of read('broker-jvm.log').split('\n')) {
  const at = /^\[(\d+)ms\]/.exec(line);
  if (!at) continue;
  const total = /Safepoint "([^"]+)".*Total: (\d+) ns/.exec(line);
  const pause = /(Pause[^(]*).*?([\d.]+)ms$/.exec(line);
  const ms = total ? Number(total[2]) / 1e6 : pause ? Number(pause[2]) : NaN;
  if (!(ms >= 1)) continue;
  const end = Number(at[1]);
  events.push({ kind: ms >= 20 ? 'broker pause ≥20 ms' : 'broker pause', start: end - ms, end, text: `broker ${total ? `safepoint ${total[1]}` : pause[1].trim()} ${ms.toFixed(1)} ms` });
}
// The machine probe: its own lateness, pressure and the busiest processes per 100 ms.
const machine = read('machine.jsonl').split('\n').filter(Boolean).map((l) => JSON.parse(l));
for (const m of machine) {
  if (m.late >= 30) {
    const top = m.top.map(([pid, name, ms]) => `${nameOfPid.get(pid) ?? name}:${ms}`).join(' ');
    events.push({ kind: m.late >= 50 ? 'machine probe late ≥50 ms' : 'machine probe late', start: m.at - m.late, end: m.at, text: `machine probe ${m.late} ms late; cpu pressure ${(m.cpuSome / 1000).toFixed(0)} ms io ${(m.ioSome / 1000).toFixed(0)} ms; top ${top}` });
  }
}
events.sort((a, b) => a.start - b.start);

// The services' V8 profiles, when the run gave SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=<dir>/prof":
// per episode, what the busiest processes ran (their sample times are CLOCK_MONOTONIC µs).
const profDir = join(dir, 'prof');
const profiles = existsSync(profDir)
  ? readdirSync(profDir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => {
        const pid = Number(/\.(\d+)\.\d+\.\d+\.cpuprofile$/.exec(f)?.[1]);
        const profile = JSON.parse(readFileSync(join(profDir, f), 'utf8'));
        const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
        const parent = new Map();
        for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
        const times = [];
        let at = profile.startTime;
        for (const delta of profile.timeDeltas) times.push((at += delta) / 1000 + info.monotonicToEpoch);
        return { name: nameOfPid.get(pid) ?? String(pid), profile, nodes, parent, times };
      })
  : [];
function profileOf(p, from, to) {
  const key = (n) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/.*\/(node_modules\/\.pnpm\/)?/, '').replace(/.*\/(services|packages)\//, '')}:${n.callFrame.lineNumber + 1}`;
  const self = new Map();
  const total = new Map();
  let busy = 0;
  for (let i = 1; i < p.times.length; i++) {
    if (p.times[i] < from || p.times[i] > to) continue;
    const leaf = p.nodes.get(p.profile.samples[i]);
    if (leaf.callFrame.functionName === '(idle)' || leaf.callFrame.functionName === '(program)') continue;
    const ms = p.times[i] - p.times[i - 1];
    busy += ms;
    self.set(key(leaf), (self.get(key(leaf)) ?? 0) + ms);
    const seen = new Set();
    for (let id = leaf.id; id !== undefined; id = p.parent.get(id)) {
      const k = key(p.nodes.get(id));
      if (!seen.has(k)) total.set(k, (total.get(k) ?? 0) + ms);
      seen.add(k);
    }
  }
  return { busy, self, total };
}

// The slow sends, grouped into episodes.
const stageOf = (s) => ({ answer: s.answered - s.scheduled, kafka: s.kafka === undefined ? NaN : s.kafka - s.scheduled, visible: s.visible === undefined ? NaN : s.visible - s.scheduled });
const slow = sends.filter((s) => Object.values(stageOf(s)).some((v) => v >= STALL_MS)).sort((a, b) => a.scheduled - b.scheduled);
const episodes = [];
for (const s of slow) {
  const st = stageOf(s);
  const end = s.scheduled + Math.max(...Object.values(st).filter(Number.isFinite));
  const last = episodes.at(-1);
  if (last && s.scheduled - last.end < 1000) {
    last.sends.push(s);
    last.end = Math.max(last.end, end);
  } else episodes.push({ start: s.scheduled, end, sends: [s] });
}
const iso = (ms) => new Date(ms).toISOString().slice(11, 23);
const max = (xs) => Math.max(...xs.filter(Number.isFinite), 0);
const rateAt = (t) => loops.find((l) => t >= l.startedAt && t <= l.endedAt)?.rate ?? '?';
console.log(`\n${sends.length} sends, ${slow.length} with a stage ≥ ${STALL_MS} ms, in ${episodes.length} episodes; over 250 ms: answer ${sends.filter((s) => stageOf(s).answer >= 250).length}, kafka ${sends.filter((s) => stageOf(s).kafka >= 250).length}, visible ${sends.filter((s) => stageOf(s).visible >= 250).length} (of ${sends.filter((s) => s.visible).length} watched)`);
const overlaps = new Map();
for (const [i, ep] of episodes.entries()) {
  const st = ep.sends.map(stageOf);
  console.log(`\nepisode ${i + 1} at ${iso(ep.start)}–${iso(ep.end)} (${rateAt(ep.start)} msg/s): ${ep.sends.length} slow sends; worst answer ${max(st.map((x) => x.answer)).toFixed(0)} ms, kafka ${max(st.map((x) => x.kafka)).toFixed(0)} ms, visible ${max(st.map((x) => x.visible)).toFixed(0)} ms`);
  for (const s of ep.sends.slice(0, 6)) {
    const x = stageOf(s);
    console.log(`    send ${s.id} scheduled ${iso(s.scheduled)}: answer ${x.answer.toFixed(0)} kafka ${Number.isFinite(x.kafka) ? x.kafka.toFixed(0) : '—'} visible ${Number.isFinite(x.visible) ? x.visible.toFixed(0) : '—'} ms`);
  }
  if (ep.sends.length > 6) console.log(`    … ${ep.sends.length - 6} more`);
  const from = ep.start - 500;
  for (const e of events) {
    if (e.end < from || e.start > ep.end) continue;
    if (!/≥/.test(e.kind) && !/late/.test(e.kind)) continue;
    console.log(`  ${iso(e.start)} +${(e.end - e.start).toFixed(0).padStart(4)} ms  ${e.text}`);
    const set = overlaps.get(e.kind) ?? new Set();
    set.add(i);
    overlaps.set(e.kind, set);
  }
  const busiest = profiles.map((p) => ({ p, r: profileOf(p, from, ep.end) })).sort((a, b) => b.r.busy - a.r.busy);
  for (const { p, r } of busiest.slice(0, 3)) {
    const top = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${v.toFixed(0)} ${k}`).join('; ');
    console.log(`  profile ${p.name}: ${r.busy.toFixed(0)} ms busy; self: ${top(r.self, 5)}`);
    console.log(`      total: ${top([...r.total].filter(([k]) => !/^\((root|anonymous)\)/.test(k) && !/processTicksAndRejections|runMicrotasks/.test(k)), 10)}`);
  }
  const windows = machine.filter((m) => m.at >= from && m.at - 100 <= ep.end);
  const cpu = new Map();
  for (const m of windows) for (const [pid, name, ms] of m.top) cpu.set(nameOfPid.get(pid) ?? `${name}(${pid})`, (cpu.get(nameOfPid.get(pid) ?? `${name}(${pid})`) ?? 0) + ms);
  const top = [...cpu].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([n, ms]) => `${n} ${ms}`).join(', ');
  console.log(`  machine over ${windows.length * 100} ms: cpu pressure ${(windows.reduce((a, m) => a + m.cpuSome, 0) / 1000).toFixed(0)} ms, io pressure ${(windows.reduce((a, m) => a + m.ioSome, 0) / 1000).toFixed(0)} ms; CPU ms by process: ${top}`);
}
console.log('\nper kind of event: episodes it overlaps (of ' + episodes.length + '), and its events in all / outside any episode');
const inEpisode = (e) => episodes.some((ep) => e.end >= ep.start - 500 && e.start <= ep.end);
for (const kind of [...new Set(events.map((e) => e.kind))].sort()) {
  const all = events.filter((e) => e.kind === kind);
  console.log(`  ${kind.padEnd(34)} ${String(overlaps.get(kind)?.size ?? 0).padStart(3)} episodes   ${all.length} events, ${all.filter((e) => !inEpisode(e)).length} outside`);
}
for (const l of loops) console.log(`  loop ${l.rate} msg/s ${iso(l.startedAt)}–${iso(l.endedAt)}: send p99 ${l.sendP99?.toFixed(0)} visible p99 ${l.visibleP99?.toFixed(0)} ms, ${l.late} late`);
