// node bench/cpuProfileSummary.mjs <dir> [idle|load] [rows] — what each service spent its CPU on in a
// window of bench/process-cost.mjs: the V8 profiles its services wrote (SERVICE_NODE_ARGS="--cpu-prof
// --cpu-prof-dir=<dir>") cut to the window in <dir>/windows.json, then per process the functions with the
// most self time and the most total (inclusive) time, per message (load) or per second (idle), and
// self time by origin (a dependency, node's internals, or a package/service of this repo).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, phase = 'load', rowsArg = '12'] = process.argv.slice(2);
if (!dir) throw new Error('usage: node bench/cpuProfileSummary.mjs <dir> [idle|load] [rows]');
const rows = Number(rowsArg);
const windows = JSON.parse(readFileSync(join(dir, 'windows.json'), 'utf8'));
const window = windows[phase];
// Per message where the window counts them (load, or a rebuild's events), else per second (idle).
const unit = window.messages ?? window.seconds;
const unitName = window.messages !== undefined ? 'ms/msg' : 'ms/s';

/** Where a function comes from: a dependency's name, node's internals, or the repo's package/service. */
function origin(url) {
  if (!url) return '(native/gc/idle)';
  if (url.startsWith('node:')) return 'node';
  const dep = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dep) return dep[1];
  const own = /\/(packages|services)\/([^/]+)\/|\/(gateway)\//.exec(url);
  if (own) return own[3] ?? `${own[1]}/${own[2]}`;
  return url;
}

for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort()) {
  const pid = /\.(\d+)\.\d+\.\d+\.cpuprofile$/.exec(file)?.[1];
  const name = windows.pids[pid];
  if (!name) continue;
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const self = new Map();
  const total = new Map();
  const byOrigin = new Map();
  let at = profile.startTime;
  let busyUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const previous = at;
    at += profile.timeDeltas[i];
    if (at < window.fromUs || at > window.toUs) continue;
    // The sample stands for the time since the one before it.
    const us = Math.max(0, at - Math.max(previous, window.fromUs));
    const leaf = nodes.get(profile.samples[i]);
    const leafName = leaf.callFrame.functionName;
    if (leafName === '(idle)' || leafName === '(program)') continue;
    busyUs += us;
    const key = (n) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/.*\/(node_modules\/\.pnpm\/)?/, '')}:${n.callFrame.lineNumber + 1}`;
    self.set(key(leaf), (self.get(key(leaf)) ?? 0) + us);
    byOrigin.set(origin(leaf.callFrame.url), (byOrigin.get(origin(leaf.callFrame.url)) ?? 0) + us);
    const seen = new Set();
    for (let id = leaf.id; id !== undefined; id = parent.get(id)) {
      const k = key(nodes.get(id));
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + us);
    }
  }
  const show = (us) => (us / 1000 / unit).toFixed(3).padStart(8);
  const top = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
  console.log(`\n== ${name} (pid ${pid}): ${show(busyUs)} ${unitName} sampled busy (${phase})`);
  console.log('  self by origin: ' + top(byOrigin, 8).map(([k, v]) => `${k} ${(v / 1000 / unit).toFixed(3)}`).join(', '));
  console.log('  self:');
  for (const [k, v] of top(self, rows)) console.log(`    ${show(v)}  ${k}`);
  console.log('  total:');
  for (const [k, v] of top(total, rows + 8)) console.log(`    ${show(v)}  ${k}`);
}
