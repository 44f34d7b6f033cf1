// node bench/kafka-request-tally.mjs <request log> [<from ISO>/<to ISO> [<messages>]] … — what the broker was
// asked, by client, consumer group and API (ADR 0121). The log is the broker's own request log, written when
// the devstack starts the broker with KAFKA_REQUEST_LOG=<file> (infra/devstack: `kafka.request.logger` at
// DEBUG; every completed request with its header, body, answer without records, connection and times).
// send-path-cpu.mjs prints each round's idle and load windows in the `<from>/<to>` form; give one or more
// windows, each optionally with the messages accepted in it (then counts are per message, else per second).
//
// A connection is labelled by what it sent over the whole log: the group of its JoinGroup, SyncGroup,
// Heartbeat, LeaveGroup or OffsetCommit, "producer" for Produce/InitProducerId, "fetch[<topics>]" for a
// connection that fetches (kafkajs fetches on a connection of its own, not the coordinator's: the topics
// tell the groups of one process apart), else "admin" (the lag reader's, the fences' and the watches'
// OffsetFetch, ListOffsets and Metadata; OffsetFetch's groups are listed apart). A fetch is
// counted as "empty" when its answer carried no record bytes for the connection that asked, and as
// "busy" when it asked for more than one byte (a gathering fetch, ADR 0083).
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

const [logFile, ...windowArgs] = process.argv.slice(2);
if (!logFile) {
  console.error('usage: node bench/kafka-request-tally.mjs <request log> [<from ISO>/<to ISO> [<messages>]] …');
  process.exit(2);
}
/** @type {{ from: number, to: number, messages: number | null }[]} */
const windows = [];
for (let i = 0; i < windowArgs.length; i++) {
  const [from, to] = windowArgs[i].split('/').map((t) => Date.parse(t));
  const messages = /^\d+$/.test(windowArgs[i + 1] ?? '') ? Number(windowArgs[++i]) : null;
  windows.push({ from, to, messages });
}
if (windows.length === 0) windows.push({ from: -Infinity, to: Infinity, messages: null });

const MEMBER_APIS = new Set(['JOIN_GROUP', 'SYNC_GROUP', 'HEARTBEAT', 'LEAVE_GROUP', 'OFFSET_COMMIT']);
/** Group names end in the round's database name: what stays is the group's purpose. */
const purposeOf = (group) => group.replace(/\.chat_[^.]*/g, '').replace(/\.[a-z]+_[a-z0-9_]+$/, '').replace(/-[0-9a-f]{8}-[0-9a-f-]{27}$/, '-<uuid>');
/** Topic names without the `chat.` and `.events` around them. */
const topicsOf = (body) => [...new Set((body.topics ?? []).map((t) => t.topic.replace(/^chat\./, '').replace(/\.events$/, '')))].sort().join(',');

const requests = [];
const labels = new Map();
const lines = createInterface({ input: createReadStream(logFile), crlfDelay: Infinity });
for await (const line of lines) {
  const at = line.indexOf(' Completed request:');
  if (at < 0) continue;
  const time = Date.parse(`${line.slice(0, at).replace(' ', 'T').replace(',', '.')}Z`);
  let entry;
  try {
    entry = JSON.parse(line.slice(at + ' Completed request:'.length));
  } catch {
    continue;
  }
  const api = entry.requestHeader.requestApiKeyName;
  const connection = entry.connection.split('-')[1] ?? entry.connection;
  const body = entry.request ?? {};
  const label = labels.get(connection) ?? {};
  if (MEMBER_APIS.has(api) && body.groupId) label.group = purposeOf(body.groupId);
  if (api === 'PRODUCE' || api === 'INIT_PRODUCER_ID') label.producer = true;
  if (api === 'FETCH' && !label.fetches) label.fetches = topicsOf(body);
  labels.set(connection, label);
  const request = { time, api, client: entry.requestHeader.clientId, connection, totalMs: entry.totalTimeMs };
  if (api === 'FETCH') {
    const bytes = (entry.response?.responses ?? []).reduce((sum, t) => sum + t.partitions.reduce((s, p) => s + (p.recordsSizeInBytes ?? 0), 0), 0);
    request.detail = `${bytes > 0 ? 'records' : 'empty'}${body.minBytes > 1 ? ' busy' : ''}`;
  }
  if (api === 'OFFSET_FETCH') request.detail = (body.groups?.map((g) => g.groupId) ?? [body.groupId]).map(purposeOf).join(',');
  requests.push(request);
}

for (const window of windows) {
  const inside = requests.filter((r) => r.time >= window.from && r.time < window.to);
  const seconds = Number.isFinite(window.to - window.from) ? (window.to - window.from) / 1000 : null;
  const per = window.messages ?? seconds ?? 1;
  const unit = window.messages ? 'per message' : seconds ? 'per second' : 'in all';
  const rows = new Map();
  for (const r of inside) {
    const label = labels.get(r.connection) ?? {};
    const who = `${r.client} ${label.group ?? (label.producer ? 'producer' : label.fetches ? `fetch[${label.fetches}]` : 'admin')}`;
    const key = `${who}\t${r.api}${r.detail ? ` ${r.detail}` : ''}`;
    const row = rows.get(key) ?? { count: 0, ms: 0 };
    row.count += 1;
    row.ms += r.totalMs;
    rows.set(key, row);
  }
  const byApi = new Map();
  for (const r of inside) byApi.set(r.api, (byApi.get(r.api) ?? 0) + 1);
  const span = Number.isFinite(window.from) ? `${new Date(window.from).toISOString()}/${new Date(window.to).toISOString()}` : 'whole log';
  console.log(`${span}: ${inside.length} requests, ${(inside.length / per).toFixed(3)} ${unit}${window.messages ? ` (${window.messages} messages)` : ''}`);
  console.log(`  by API: ${[...byApi].sort((a, b) => b[1] - a[1]).map(([api, n]) => `${api} ${(n / per).toFixed(3)}`).join(', ')}`);
  for (const [key, row] of [...rows].sort((a, b) => b[1].count - a[1].count)) {
    const [who, what] = key.split('\t');
    console.log(`  ${(row.count / per).toFixed(3).padStart(8)}  ${who.padEnd(64)} ${what.padEnd(36)} mean ${(row.ms / row.count).toFixed(1)} ms`);
  }
}
