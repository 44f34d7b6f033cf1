// node bench/machineProbe.mjs <file> — a process that does nothing of ours (ADR 0155): every 20 ms it wakes
// and notes how late it woke; every 100 ms it appends to <file> a line with the wall clock (ms), its worst
// lateness since the last line, the machine's CPU and IO pressure stall time over those 100 ms (PSI, µs),
// the run queue, and the five processes on the machine that used the most CPU in them (pid, name, ms).
// Started by bench/stall-timeline.mjs; ends when its parent closes its stdin.
import { appendFileSync, readFileSync, readdirSync } from 'node:fs';

const file = process.argv[2];
const psi = (name) => {
  try {
    const text = readFileSync(`/proc/pressure/${name}`, 'utf8');
    const total = (line) => Number(/total=(\d+)/.exec(text.split('\n').find((l) => l.startsWith(line)) ?? '')?.[1] ?? 0);
    return { some: total('some'), full: total('full') };
  } catch {
    return { some: 0, full: 0 };
  }
};
const TICK_MS = 1000 / 100; // USER_HZ
const cpuOf = () => {
  const out = new Map();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      out.set(pid, { name, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // gone
    }
  }
  return out;
};
let lastCpu = cpuOf();
let lastPsi = { cpu: psi('cpu'), io: psi('io') };
let worst = 0;
let expected = performance.now() + 20;
let ticks = 0;
const timer = setInterval(() => {
  const now = performance.now();
  worst = Math.max(worst, now - expected);
  expected = now + 20;
  if (++ticks % 5 !== 0) return;
  const cpu = cpuOf();
  const top = [];
  for (const [pid, { name, ticks: t }] of cpu) {
    const before = lastCpu.get(pid)?.ticks ?? t;
    if (t > before) top.push([Number(pid), name, (t - before) * TICK_MS]);
  }
  top.sort((a, b) => b[2] - a[2]);
  const p = { cpu: psi('cpu'), io: psi('io') };
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ');
  appendFileSync(
    file,
    `${JSON.stringify({ at: Math.round(performance.timeOrigin + now), late: Math.round(worst), cpuSome: p.cpu.some - lastPsi.cpu.some, ioSome: p.io.some - lastPsi.io.some, ioFull: p.io.full - lastPsi.io.full, running: load[3], top: top.slice(0, 5) })}\n`,
  );
  lastCpu = cpu;
  lastPsi = p;
  worst = 0;
}, 20);
process.stdin.on('end', () => clearInterval(timer));
process.stdin.resume();
