// The noisy tenant of bench/noisy-tenant.mjs as its own process (a separate client, as it would be):
// sent in the measuring process, its timers and sockets shared that process's event loop and
// delayed the quiet tenant's requests before they ever reached the gateway.
//   node bench/noisyLoad.mjs <url> <rate per second> <headers as JSON>
// Sends GET <url> at the rate until the parent sends 'stop', then replies with the answers by status.
import http from 'node:http';

const [url, rateText, headersJson] = process.argv.slice(2);
const rate = Number(rateText);
const headers = JSON.parse(headersJson);
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
const target = new URL(url);
const statuses = {};
let running = true;

process.on('message', (message) => {
  if (message === 'stop') running = false;
});

const started = performance.now();
for (let i = 0; running; i++) {
  const wait = started + (i * 1000) / rate - performance.now();
  if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
  const request = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'GET', headers, agent }, (response) => {
    statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
    response.resume();
  });
  request.on('error', () => (statuses.error = (statuses.error ?? 0) + 1));
  request.end();
}
await new Promise((resolve) => setTimeout(resolve, 200)); // the last answers
agent.destroy();
process.send(statuses, () => process.exit(0));
