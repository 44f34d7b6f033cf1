import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp, createUser, eventually } from './support/api.js';
import { commitCount, deliveryRevision } from './support/mongo.js';
import type { TestApp } from './support/api.js';
import { sendMessage, text } from './support/messages.js';
import { WebhookReceiver, signatureValid } from './support/webhookReceiver.js';
import { createWebhook, deliveries, deliveryProcessKnows, manage } from './support/webhooks.js';

const receivers: WebhookReceiver[] = [];
async function receiver(): Promise<WebhookReceiver> {
  const started = await new WebhookReceiver().start();
  receivers.push(started);
  return started;
}

async function send(app: TestApp, from: string, to: string, words: string): Promise<string> {
  const sent = await sendMessage(app, from, text(to, words));
  if (sent.status !== 200) throw new Error(`send: ${sent.status} ${JSON.stringify(sent.body)}`);
  return sent.body.data.id as string;
}

describe('webhooks deliver through the real stack', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createApp('webhooks');
    await Promise.all(['alice', 'bob', 'carol', 'dave', 'erin'].map((uid) => createUser(app, uid)));
  });

  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.stop()));
  });

  it('a sent message reaches the receiver, signed with the secret shown at creation and with Basic Auth', async () => {
    const hook = await receiver();
    const { id, secret } = await createWebhook(app, 'signed', hook.url, ['message_sent'], {
      useBasicAuth: true,
      username: 'hooks',
      password: 'p4ssw0rd',
    });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const messageId = await send(app, 'alice', 'bob', 'hello webhook');

    const arrived = await eventually(async () => hook.ofTrigger('message_sent'), (r) => r.length > 0);
    expect(arrived).toHaveLength(1);
    const request = arrived[0]!;
    expect(request.json).toMatchObject({ trigger: 'message_sent', appId: app.appId, region: 'us', webhook: id });
    expect(request.json.data.message).toMatchObject({ id: messageId, sender: 'alice', receiver: 'bob', data: { text: 'hello webhook' } });
    expect(signatureValid(request, secret)).toBe(true);
    expect(signatureValid({ ...request, body: request.body.replace('hello', 'HELLO') }, secret)).toBe(false);
    expect(request.headers['authorization']).toBe(`Basic ${Buffer.from('hooks:p4ssw0rd').toString('base64')}`);
    // Answered at once, so stored once: one log document, inserted delivered with the run's other
    // deliveries and never updated, and no event stream of its own (ADR 0044).
    const deliveryId = String(request.headers['webhook-id']);
    const logged = await eventually(() => deliveries(app, id), (r) => r.body.data?.[0]?.status === 'delivered');
    expect(logged.body.data).toHaveLength(1);
    expect(logged.body.data[0]).toMatchObject({ id: deliveryId, status: 'delivered', attempts: 1, responseCode: 200 });
    // The first-attempt wait is 200 ms (WEBHOOK_FIRST_ATTEMPT_WAIT_MS): an answer within it is stored
    // once; on a loaded machine the answer can come later, and then the pending document is updated once.
    const stored = await deliveryRevision(deliveryId);
    expect(stored).toBeDefined();
    if (stored!.queuedToDeliveredMs < 150) expect(stored!.revision).toBe(1);
    else expect(stored!.revision).toBeLessThanOrEqual(2);
    expect(await commitCount('webhooks', `delivery:${app.appId}:${deliveryId}`)).toBe(0);

    // The secret is never shown again, and a rotated one signs from then on.
    const got = await manage('GET', `/apps/${app.appId}/webhooks/${id}`);
    expect(JSON.stringify(got.body)).not.toContain(secret);
    expect(JSON.stringify(got.body)).not.toContain('p4ssw0rd');
    const rotated = await manage('POST', `/apps/${app.appId}/webhooks/${id}/secret`);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.data.signingSecret as string;
    expect(newSecret).not.toBe(secret);
    await sleep(500); // the delivery process learns the rotation from management's event
    await send(app, 'alice', 'bob', 'after rotation');
    const second = await eventually(async () => hook.ofTrigger('message_sent'), (r) => r.length > 1);
    expect(signatureValid(second[1]!, newSecret)).toBe(true);
    expect(signatureValid(second[1]!, secret)).toBe(false);
  });

  it('a receiver answering 500 three times and then 200 gets the delivery, with 4 attempts in the log', async () => {
    const hook = await receiver();
    hook.script.push(500, 500, 500);
    const { id } = await createWebhook(app, 'flaky', hook.url, ['message_sent']);
    const messageId = await send(app, 'carol', 'dave', 'try again');

    const log = await eventually(
      () => deliveries(app, id),
      (r) => r.body.data?.[0]?.status === 'delivered',
      15_000,
    );
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({ status: 'delivered', attempts: 4, responseCode: 200, trigger: 'message_sent' });
    expect(hook.received).toHaveLength(4);
    expect(new Set(hook.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([log.body.data[0].id]));
    expect(hook.received.every((r) => r.json.data.message.id === messageId)).toBe(true);
  });

  it('a receiver down while 200 messages are sent gets all of them once it is up, each conversation in order', async () => {
    const hook = await receiver();
    const { id } = await createWebhook(app, 'outage', hook.url, ['message_sent']);
    await hook.stop();

    const pairs: [string, string][] = [['alice', 'carol'], ['bob', 'dave'], ['erin', 'alice'], ['carol', 'erin']];
    const sentIds = new Map<string, string[]>();
    await Promise.all(
      pairs.map(async ([from, to]) => {
        const ids: string[] = [];
        for (let i = 0; i < 50; i++) ids.push(await send(app, from, to, `${from}→${to} #${i}`));
        sentIds.set(`${from}>${to}`, ids);
      }),
    );
    const pending = await eventually(() => deliveries(app, id, '?status=pending&perPage=1'), (r) => r.body.meta?.pagination.total === 200, 20_000);
    expect(pending.body.meta.pagination.total).toBe(200);
    expect(hook.received).toHaveLength(0);

    await hook.start();
    await eventually(
      async () => new Set(hook.ofTrigger('message_sent').map((r) => r.json.data.message.id)).size,
      (n) => n === 200,
      30_000,
    );
    for (const [from, to] of pairs) {
      const firstSeen: string[] = [];
      for (const r of hook.ofTrigger('message_sent')) {
        const message = r.json.data.message;
        if (message.sender === from && message.receiver === to && !firstSeen.includes(message.id)) firstSeen.push(message.id);
      }
      expect(firstSeen).toEqual(sentIds.get(`${from}>${to}`));
    }
  }, 120_000);

  it('a trigger the webhook does not have, or had and lost, sends nothing', async () => {
    const quiet = await receiver();
    const control = await receiver();
    const silent = await createWebhook(app, 'edits-only', quiet.url, ['message_edited', 'message_sent']);
    const removed = await manage('DELETE', `/apps/${app.appId}/webhooks/${silent.id}/triggers`, { triggerIds: ['message_sent'] });
    expect(removed.status).toBe(200);
    await deliveryProcessKnows(app, silent.id, (w) => !w.triggers.includes('message_sent'));
    await createWebhook(app, 'control', control.url, ['message_sent']);

    const messageId = await send(app, 'dave', 'erin', 'nobody edits this');
    await eventually(async () => control.received, (r) => r.some((x) => x.json.data.message.id === messageId));
    await sleep(300);
    expect(quiet.received).toHaveLength(0);
    expect((await deliveries(app, silent.id)).body.data).toHaveLength(0);
  });

  it('a message sent right after a configuration answer is delivered under that configuration, whichever replica handles it', async () => {
    const hook = await receiver();
    for (const round of [1, 2, 3]) {
      // No waiting for the delivery process: the answers are all a client has.
      const id = `instant-${round}`;
      expect((await manage('POST', `/apps/${app.appId}/webhooks`, { id, name: id, webhookURL: hook.url })).status).toBe(200);
      expect((await manage('POST', `/apps/${app.appId}/webhooks/${id}/triggers`, { triggerIds: ['message_sent'] })).status).toBe(200);
      const sent = await Promise.all(['alice', 'bob', 'carol', 'dave'].map((from) => send(app, from, 'erin', `right after ${id}`)));
      const arrived = await eventually(async () => hook.received.map((r) => r.json.data.message.id as string), (ids) => sent.every((m) => ids.includes(m)), 15_000);
      expect(arrived).toEqual(expect.arrayContaining(sent));
      const logged = await eventually(() => deliveries(app, id), (r) => r.body.data?.length === 4 && r.body.data.every((d: { status: string }) => d.status === 'delivered'));
      expect(logged.body.data.map((d: { status: string }) => d.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);

      // The trigger removed: the very next message goes nowhere.
      expect((await manage('DELETE', `/apps/${app.appId}/webhooks/${id}/triggers`, { triggerIds: ['message_sent'] })).status).toBe(200);
      const after = await send(app, 'alice', 'erin', `after ${id} lost its trigger`);
      await sleep(1_000);
      expect(hook.received.some((r) => r.json.data.message.id === after)).toBe(false);
      expect((await deliveries(app, id)).body.data).toHaveLength(4);
    }
  }, 120_000);

  it('the app setting webhooks.enabled=false silences every webhook of the app until it is set back', async () => {
    const hook = await receiver();
    await createWebhook(app, 'settable', hook.url, ['message_sent']);
    // No pause after either answer: a message sent after a setting's answer is handled under it, or
    // under a later one (ADR 0035), so the silenced message is given time to be handled before the
    // setting changes back.
    expect((await manage('POST', `/apps/${app.appId}/settings`, { settings: { 'webhooks.enabled': false } })).status).toBe(200);
    const silenced = await send(app, 'bob', 'erin', 'while silenced');
    await sleep(1_500);
    expect((await manage('POST', `/apps/${app.appId}/settings`, { settings: { 'webhooks.enabled': true } })).status).toBe(200);
    const heard = await send(app, 'bob', 'erin', 'heard again');
    // Same conversation, so the first message's event was handled before the second's.
    await eventually(async () => hook.received, (r) => r.some((x) => x.json.data.message.id === heard));
    expect(hook.received.map((r) => r.json.data.message.id)).toEqual([heard]);
    expect(hook.received.map((r) => r.json.data.message.id)).not.toContain(silenced);
  });

  it('redelivers one delivery, or everything since a time (our extension)', async () => {
    const hook = await receiver();
    hook.script.push(500, 500);
    const { id } = await createWebhook(app, 'once', hook.url, ['message_sent'], { retryOnFailure: false });
    const since = Math.floor(Date.now() / 1000) - 1;
    await send(app, 'carol', 'bob', 'first');
    await send(app, 'carol', 'bob', 'second');
    const failed = await eventually(() => deliveries(app, id, '?status=failed'), (r) => r.body.data?.length === 2);
    expect(failed.body.data.map((d: { attempts: number; responseCode: number }) => [d.attempts, d.responseCode])).toEqual([
      [1, 500],
      [1, 500],
    ]);

    const newest = failed.body.data[0].id as string;
    const one = await manage('POST', `/apps/${app.appId}/webhooks/${id}/deliveries/${newest}/redeliver`);
    expect(one.status).toBe(200);
    await eventually(() => deliveries(app, id, '?status=delivered'), (r) => r.body.data?.length === 1);
    expect(hook.received.map((r) => r.json.data.message.data.text)).toEqual(['first', 'second', 'second']);

    // Everything finished since then, delivered or not, goes again, oldest first.
    const bulk = await manage('POST', `/apps/${app.appId}/webhooks/${id}/redeliver`, { since });
    expect(bulk.body.data).toEqual({ success: true, redelivered: 2 });
    const all = await eventually(
      () => deliveries(app, id, '?status=delivered'),
      (r) => r.body.data?.length === 2 && r.body.data.every((d: { attempts: number }) => d.attempts >= 2) && r.body.data[0].attempts === 3,
    );
    expect(all.body.data.map((d: { attempts: number }) => d.attempts)).toEqual([3, 2]);
    expect(hook.received.map((r) => r.json.data.message.data.text)).toEqual(['first', 'second', 'second', 'first', 'second']);

    expect((await manage('POST', `/apps/${app.appId}/webhooks/${id}/deliveries/nosuch/redeliver`)).body.error.code).toBe('ERR_DELIVERY_NOT_FOUND');
    expect((await manage('POST', `/apps/${app.appId}/webhooks/${id}/redeliver`, {})).status).toBe(400);
    expect((await manage('GET', `/apps/${app.appId}/webhooks/nosuch/deliveries`)).body.error.code).toBe('ERR_WEBHOOK_NOT_FOUND');
  });

  it('a 410 answer disables the webhook', async () => {
    const hook = await receiver();
    hook.script.push(410);
    const { id } = await createWebhook(app, 'gone', hook.url, ['message_sent']);
    await send(app, 'erin', 'bob', 'are you there');
    const disabled = await eventually(
      () => manage('GET', `/apps/${app.appId}/webhooks/${id}`),
      (r) => r.body.data?.enabled === false,
    );
    expect(disabled.body.data.enabled).toBe(false);
    expect((await deliveries(app, id)).body.data[0]).toMatchObject({ status: 'failed', attempts: 1, responseCode: 410 });
    await send(app, 'erin', 'bob', 'still there?');
    await sleep(500);
    expect(hook.received).toHaveLength(1);
  });

  it('an app without a webhook costs the delivery process no decoding: its events are skipped from their headers', async () => {
    // Summed over the delivery process's replicas (consumer_skipped_records, ADR 0044).
    const skipped = async () => {
      let total = 0;
      for (const url of inject('replicaUrls')['webhooks'] ?? []) {
        const text = await (await fetch(`${url}/metrics`)).text();
        for (const line of text.split('\n')) if (line.startsWith('consumer_skipped_records{') && line.includes('webhooks.deliveries')) total += Number(line.slice(line.lastIndexOf(' ') + 1));
      }
      return total;
    };
    const quiet = await createApp('no-webhooks');
    await Promise.all(['ann', 'ben'].map((uid) => createUser(quiet, uid)));
    const before = await skipped();
    for (let i = 0; i < 5; i++) await send(quiet, 'ann', 'ben', `unheard #${i}`);
    // Five sends and the users' creation: at least the five message events are skipped.
    const after = await eventually(skipped, (n) => n >= before + 5);
    expect(after).toBeGreaterThanOrEqual(before + 5);
  });

  it('deleting the app stops its webhooks and its keys', async () => {
    const doomed = await createApp('doomed');
    await Promise.all(['ann', 'ben'].map((uid) => createUser(doomed, uid)));
    const hook = await receiver();
    const { id } = await createWebhook(doomed, 'doomed-hook', hook.url, ['message_sent']);
    await hook.stop();
    await send(doomed, 'ann', 'ben', 'queued before the deletion');
    await eventually(() => deliveries(doomed, id), (r) => r.body.data?.[0]?.attempts >= 1);

    const deleted = await manage('DELETE', `/apps/${doomed.appId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toMatchObject({ success: true });
    await sleep(1_000);
    const refused = await doomed.call('GET', '/v3/users');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('AUTH_ERR_APIKEY_NOT_FOUND');
    expect((await manage('GET', `/apps/${doomed.appId}`)).status).toBe(404);

    await hook.start();
    const closed = await eventually(() => deliveries(doomed, id), (r) => r.body.data?.[0]?.status === 'failed', 10_000);
    expect(closed.body.data[0].error).toMatch(/deleted/);
    expect(hook.received).toHaveLength(0);
  });
});
