// Local stand-ins for what a tenant's features call, and how a benchmark points an app at them: a
// webhook receiver and a custom push provider on loopback, each noting when a message's first request
// arrived (performance.now(), the benchmark's own clock), and the API calls that configure a webhook on
// `message_sent`. The stack must allow loopback tenant URLs (`TENANT_URLS_ALLOW_PRIVATE: '127.0.0.0/8'`).
// Shared by webhooks.mjs, notifications.mjs and cost.mjs.
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** A loopback HTTP server answering every request (after `delayMs`); `keyOf` names the message a body is about. */
async function startRecorder(path, keyOf, answer, delayMs = 0) {
  const arrivals = new Map();
  let requests = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      requests += 1;
      let key;
      try {
        key = keyOf(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        key = undefined;
      }
      if (key !== undefined && !arrivals.has(String(key))) arrivals.set(String(key), at);
      const reply = () => res.writeHead(200).end(answer);
      if (delayMs > 0) setTimeout(reply, delayMs).unref();
      else reply();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}${path}`,
    /** message id → when its first request arrived */
    arrivals,
    requests: () => requests,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** A webhook receiver: arrivals keyed by the delivered message's id. */
export function startWebhookReceiver(delayMs = 0) {
  return startRecorder('/hook', (body) => body.data?.message?.id, 'ok', delayMs);
}

/** A custom push provider: arrivals keyed by the push's tag (the message id). */
export function startPushProvider() {
  return startRecorder('/push', (body) => body.data?.notificationDetails?.tag, '{}');
}

/** Both loopback receivers a features-on run needs, each closed by `onStop` (the stack's stop). */
export async function startFakeReceivers(onStop) {
  const hooks = await startWebhookReceiver();
  onStop(hooks.close);
  const push = await startPushProvider();
  onStop(push.close);
  return { hooks, push };
}

/**
 * Creates a webhook on `message_sent` for `app` and waits (at most `patienceMs`) until the delivery
 * process has it.
 *
 * @param {import('./stack.mjs').BenchStack} stack
 */
export async function addMessageSentWebhook(stack, app, id, url, patienceMs = 10_000) {
  const management = { key: stack.services.managementKey, secret: stack.services.managementSecret };
  await stack.api('POST', `/apps/${app.appId}/webhooks`, { headers: management, body: { id, name: id, webhookURL: url } });
  await stack.api('POST', `/apps/${app.appId}/webhooks/${id}/triggers`, { headers: management, body: { triggerIds: ['message_sent'] } });
  const deadline = performance.now() + patienceMs;
  while (performance.now() < deadline) {
    // One read at a time, each given the rest of the patience: on a large deliveries collection the
    // delivery log is a scan of seconds (ADR 0074), and a read abandoned by the client still runs in
    // the store, so short timeouts would pile up scans instead of waiting for one.
    const log = await fetch(`${stack.services.gatewayUrl}/apps/${app.appId}/webhooks/${id}/deliveries?perPage=1`, {
      headers: management,
      signal: AbortSignal.timeout(Math.max(1_000, Math.ceil(deadline - performance.now()))),
    }).catch(() => null);
    const body = log?.ok ? await log.json() : null;
    if (body?.meta.webhook.triggers.includes('message_sent')) return;
    await sleep(100);
  }
  throw new Error(`the delivery process never saw webhook ${id}`);
}
