import { selfContainedPage } from './pageShell.js';

/**
 * The operators' console: one self-contained page (no CDN) served by the gateway. It talks to the
 * management API with the operator's key and secret (kept in this tab's sessionStorage only): apps
 * and their keys, consumer lag as a chart, a live tail of a topic, and dead letters with a redrive
 * button (the `/ops/*` endpoints of the management service).
 */
export const CONSOLE_PAGE = selfContainedPage(
  'Chat platform console',
  `
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f4f6fa; }
  header { background: #1d2330; color: #fff; padding: .7rem 1.5rem; display: flex; gap: 1rem; align-items: center; }
  header h1 { font-size: 1.1rem; margin: 0 1rem 0 0; }
  header input { width: 12rem; }
  main { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; padding: 1rem 1.5rem; }
  section { background: #fff; border: 1px solid #d8dce4; border-radius: 8px; padding: .6rem 1rem; min-height: 8rem; }
  h2 { font-size: 1rem; margin: .2rem 0 .6rem; }
  table { width: 100%; border-collapse: collapse; font-size: 12px; } td, th { text-align: left; padding: .15rem .4rem; border-bottom: 1px solid #eef0f4; }
  code, .mono { font-family: ui-monospace, monospace; font-size: 12px; }
  #status { margin-left: auto; font-size: 12px; }
  .bar { fill: #3b82f6; } .bar.lagging { fill: #ef4444; } svg text { font-size: 11px; fill: #1d2330; }
  #events { max-height: 16rem; overflow: auto; }
  button { cursor: pointer; }
`,
  `<header>
  <h1>Chat platform console</h1>
  <label>key <input id="key" autocomplete="off"></label>
  <label>secret <input id="secret" type="password" autocomplete="off"></label>
  <button id="connect">Connect</button>
  <span id="status">not connected</span>
</header>
<main>
  <section id="apps-section"><h2>Apps and keys</h2>
    <form id="create-app"><input id="app-name" placeholder="new app name" required> <button>Create app</button></form>
    <table id="apps"><thead><tr><th>app</th><th>name</th><th>region</th><th>keys</th></tr></thead><tbody></tbody></table>
  </section>
  <section id="lag-section"><h2>Consumer lag</h2><svg id="lag-chart" width="100%" height="40"></svg></section>
  <section id="tail-section"><h2>Live events</h2>
    <select id="topic"><option>chat.users.events</option><option>chat.messages.events</option><option>chat.conversations.events</option><option>chat.management.events</option><option>chat.webhooks.events</option></select>
    <input id="tail-app" placeholder="appId (optional)">
    <div id="events" class="mono"></div>
  </section>
  <section id="dlq-section"><h2>Dead letters</h2>
    <input id="dlq-group" placeholder="consumer group" size="40"> <button id="dlq-load">Show</button> <button id="dlq-redrive">Redrive</button> <span id="dlq-result"></span>
    <table id="dead-letters"><thead><tr><th>offset</th><th>from</th><th>reason</th><th>redriven</th></tr></thead><tbody></tbody></table>
  </section>
</main>
`,
  `const $ = (id) => document.getElementById(id);
$('key').value = sessionStorage.getItem('key') || '';
$('secret').value = sessionStorage.getItem('secret') || '';
async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: { key: $('key').value, secret: $('secret').value, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error ? answer.error.code + ': ' + answer.error.message : String(response.status));
  return answer.data;
}
function status(text) { $('status').textContent = text; }

async function loadApps() {
  const apps = await api('GET', '/apps?perPage=100');
  $('apps').tBodies[0].innerHTML = apps.map((app) => '<tr data-app="' + esc(app.id) + '"><td><code>' + esc(app.id) + '</code></td><td>' + esc(app.name) + '</td><td>' + esc(app.region) +
    '</td><td>' + Object.values(app.apiKeys || {}).map((k) => '<code title="' + esc(k.scope) + '">' + esc(String(k.apiKey).slice(0, 8)) + '… ' + esc(k.scope) + '</code>').join('<br>') + '</td></tr>').join('');
}
async function loadLag() {
  const rows = await api('GET', '/ops/lag');
  const byGroup = new Map();
  for (const row of rows) byGroup.set(row.groupId, (byGroup.get(row.groupId) || 0) + row.lag);
  const entries = [...byGroup].sort((a, b) => b[1] - a[1]);
  const max = Math.max(1, ...entries.map(([, lag]) => lag));
  const chart = $('lag-chart');
  chart.setAttribute('height', String(Math.max(40, entries.length * 20 + 10)));
  chart.innerHTML = entries.map(([group, lag], i) => {
    const width = Math.max(2, Math.round((lag / max) * 240));
    return '<g data-group="' + esc(group) + '" data-lag="' + lag + '"><text x="0" y="' + (i * 20 + 14) + '">' + esc(group.length > 48 ? group.slice(0, 47) + '…' : group) + '</text>' +
      '<rect class="bar' + (lag > 0 ? ' lagging' : '') + '" x="330" y="' + (i * 20 + 4) + '" height="13" width="' + width + '"></rect>' +
      '<text x="' + (335 + width) + '" y="' + (i * 20 + 14) + '">' + lag + '</text></g>';
  }).join('');
}
let eventsAsked = 0;
async function loadEvents() {
  // A slower answer to an earlier filter must not overwrite the answer to the current one.
  const asked = ++eventsAsked;
  const query = new URLSearchParams({ topic: $('topic').value, limit: '20' });
  if ($('tail-app').value) query.set('appId', $('tail-app').value);
  const events = await api('GET', '/ops/events?' + query);
  if (asked !== eventsAsked) return;
  $('events').innerHTML = events.reverse().map((e) => '<div class="event">' + esc(e.partition + '@' + e.offset + ' ' + (e.event.type || '?') + ' ' + (e.event.appId || '') + ' ' + (e.event.streamId || '')) + '</div>').join('');
}
async function loadDeadLetters() {
  if (!$('dlq-group').value) return;
  const letters = await api('GET', '/ops/deadletters?' + new URLSearchParams({ group: $('dlq-group').value }));
  $('dead-letters').tBodies[0].innerHTML = letters.map((l) => '<tr class="letter"><td>' + esc(l.partition + '@' + l.offset) + '</td><td>' + esc(l.from.topic + '@' + l.from.offset) +
    '</td><td>' + esc(l.reason) + '</td><td class="redriven">' + (l.redriven ? 'yes' : 'no') + '</td></tr>').join('');
}
async function refresh() {
  try {
    await Promise.all([loadApps(), loadLag(), loadEvents(), loadDeadLetters()]);
    status('connected · ' + new Date().toLocaleTimeString());
  } catch (error) { status(String(error.message || error)); }
}
$('connect').onclick = () => { sessionStorage.setItem('key', $('key').value); sessionStorage.setItem('secret', $('secret').value); refresh(); };
$('create-app').onsubmit = async (event) => {
  event.preventDefault();
  try { await api('POST', '/apps', { name: $('app-name').value, region: 'us' }); $('app-name').value = ''; await loadApps(); } catch (error) { status(String(error.message)); }
};
$('dlq-load').onclick = () => loadDeadLetters().catch((error) => status(String(error.message)));
// The redrive's outcome has a place of its own: the status line is rewritten by every refresh, and a
// refresh that began before the redrive answered could end right after it and hide the outcome.
$('dlq-redrive').onclick = async () => {
  $('dlq-result').textContent = 'redriving…';
  try { const result = await api('POST', '/ops/deadletters/redrive', { group: $('dlq-group').value }); $('dlq-result').textContent = 'redriven: ' + result.redriven; await loadDeadLetters(); } catch (error) { $('dlq-result').textContent = String(error.message); }
};
$('topic').onchange = $('tail-app').onchange = () => loadEvents().catch(() => undefined);
setInterval(() => { if ($('key').value) refresh(); }, 3000);
if ($('key').value) refresh();
`,
);
