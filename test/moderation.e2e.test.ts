import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { carryingTokens, createApp, createUser, eventually } from './support/api.js';
import type { ApiResponse, TestApp } from './support/api.js';
import { checkedFetch } from './support/responseContract.js';
import { done, sendMessage, text } from './support/messages.js';
import { expectError } from './support/users.js';
import { WebhookReceiver } from './support/webhookReceiver.js';
import { createWebhook, manage } from './support/webhooks.js';

let app: TestApp;
let hook: WebhookReceiver;

function messagesBetween(viewer: string, peer: string): Promise<ApiResponse> {
  return app.call('GET', `/v3/users/${peer}/messages?perPage=100`, { onBehalfOf: viewer });
}

const texts = (r: ApiResponse): string[] => (r.body.data as Array<{ data: { text?: string } }>).map((m) => m.data.text ?? '');

/** A rule over one keyword list, acting as `action` says. */
async function ruleOver(id: string, listId: string, terms: string[], action: string): Promise<void> {
  await done(app.call('POST', '/v3/moderation/keywords', { body: { id: listId, name: listId, category: 'word', searchTerms: terms } }));
  await done(
    app.call('POST', '/v3/moderation/rules', {
      body: { id, name: `rule ${id}`, action: [action], conditions: [{ operand: 'text', operator: 'contains', isKeywordsReferencePresent: true, value: [listId] }] },
    }),
  );
}

beforeAll(async () => {
  // Rules change and act at once on one replica; across replicas for a client carrying its tokens (ADR 0035).
  app = carryingTokens(await createApp('moderation'));
  await Promise.all(['alice', 'bob', 'carol'].map((uid) => createUser(app, uid)));
  hook = await new WebhookReceiver().start();
  await createWebhook(app, 'moderation-hook', hook.url, ['message_sent']);
});

afterAll(async () => {
  // No webhook of this app is left for later tests' delivery processes to work through.
  await manage('DELETE', `/apps/${app.appId}/webhooks/moderation-hook`);
  await hook.stop();
});

describe('moderation rules act on send', () => {
  it('a keyword rule blocks a message before the receiver or any webhook sees it; it waits for review', async () => {
    await ruleOver('no-banned', 'banned', ['forbiddenword', 'evil plan'], 'blockMessage');
    // The first send after the rule's answer is judged by it (the rule is in force at once here; other replicas within their watch's lag).
    const blocked = await sendMessage(app, 'alice', text('bob', 'my Evil  Plan is ready'));
    expectError(blocked, 403, 'ERR_BLOCKED_BY_EXTENSION', 'no-banned');
    const blockedId = blocked.body.error.details.messageId as string;
    const second = await sendMessage(app, 'alice', text('bob', 'again: forbiddenword!'));
    expectError(second, 403, 'ERR_BLOCKED_BY_EXTENSION');

    // A clean message after them goes through; once its webhook arrived, none came for the blocked ones.
    const clean = await done(sendMessage(app, 'alice', text('bob', 'a clean message')));
    await eventually(async () => hook.ofTrigger('message_sent'), (r) => r.some((w) => w.json.data.message?.id === clean.body.data.id));
    expect(hook.received.map((w) => w.body).join('\n')).not.toMatch(/forbiddenword|Evil {2}Plan/);
    const seen = await eventually(() => messagesBetween('bob', 'alice'), (r) => texts(r).includes('a clean message'));
    expect(texts(seen)).toEqual(['a clean message']);

    // Stored as blocked for review, with the rule and the terms that matched.
    const list = await done(app.call('GET', '/v3/moderation/blocked-messages'));
    const entry = (list.body.data as any[]).find((e) => e.message.id === blockedId);
    expect(entry).toMatchObject({ ruleId: 'no-banned', status: 'pending', matched: ['evil plan'], action: ['blockMessage'] });
    expect(entry.message).toMatchObject({ sender: 'alice', receiver: 'bob', data: { text: 'my Evil  Plan is ready' } });

    // Approved: delivered to bob under a new id, and listed as reviewed.
    const approved = await done(app.call('PATCH', `/v3/moderation/blocked-messages/${blockedId}`, { body: { status: 'approved' } }));
    expect(approved.body.data.success).toBe(true);
    const after = await eventually(() => messagesBetween('bob', 'alice'), (r) => texts(r).includes('my Evil  Plan is ready'));
    expect(texts(after)).toEqual(['a clean message', 'my Evil  Plan is ready']);
    const reviewed = await done(app.call('GET', '/v3/moderation/reviewed-messages'));
    expect((reviewed.body.data as any[]).find((e) => e.message.id === blockedId)).toMatchObject({ status: 'approved', queue: 'blocked' });
    const again = await app.call('PATCH', `/v3/moderation/blocked-messages/${blockedId}`, { body: { status: 'rejected' } });
    expectError(again, 409, 'ERR_MESSAGE_ALREADY_REVIEWED');
  });

  it('a rule change takes effect at once: disabled, the same text goes through; revisions are kept', async () => {
    await ruleOver('toggle', 'toggle-list', ['zorblax'], 'blockMessage');
    expectError(await sendMessage(app, 'carol', text('bob', 'zorblax')), 403, 'ERR_BLOCKED_BY_EXTENSION');
    await done(app.call('PUT', '/v3/moderation/rules/toggle', { body: { enabled: false } }));
    await done(sendMessage(app, 'carol', text('bob', 'zorblax')));
    // A list change acts too: the rule enabled again and the term removed from its list.
    await done(app.call('PUT', '/v3/moderation/rules/toggle', { body: { enabled: true } }));
    await done(app.call('PUT', '/v3/moderation/keywords/toggle-list', { body: { searchTerms: ['quuxian'] } }));
    await done(sendMessage(app, 'carol', text('bob', 'zorblax')));
    expectError(await sendMessage(app, 'carol', text('bob', 'QUUXIAN')), 403, 'ERR_BLOCKED_BY_EXTENSION');
    const revisions = await done(app.call('GET', '/v3/moderation/rules/toggle/revisions'));
    expect((revisions.body.data as any[]).map((r) => [r.revisionId.split('_').at(-1), r.enabled, r.active])).toEqual([
      ['3', true, true],
      ['2', false, false],
      ['1', true, false],
    ]);
  });

  it('takes a keyword list as CometChat’s multipart form with a CSV file, and a rule over it acts', async () => {
    const form = new FormData();
    form.append('id', 'uploaded');
    form.append('name', 'Uploaded list');
    form.append('category', 'word');
    form.append('file', new Blob(['"frobnicate",\nwidgetry\r\n'], { type: 'text/csv' }), 'terms.csv');
    const response = await checkedFetch(`${inject('gatewayUrl')}/v3/moderation/keywords`, {
      method: 'POST',
      headers: { appId: app.appId, apikey: app.fullAccessKey },
      body: form,
    });
    const created = (await response.json()) as { data: Record<string, unknown> };
    expect(response.status).toBe(200);
    expect(created.data).toMatchObject({ id: 'uploaded', isCSV: true, searchTerms: ['frobnicate', 'widgetry'], active: true });
    await done(
      app.call('POST', '/v3/moderation/rules', {
        body: { id: 'uploaded-rule', name: 'uploaded', action: ['blockMessage'], conditions: [{ operand: 'text', isKeywordsReferencePresent: true, value: ['uploaded'] }] },
      }),
    );
    expectError(await sendMessage(app, 'bob', text('carol', 'such WIDGETRY')), 403, 'ERR_BLOCKED_BY_EXTENSION', 'uploaded-rule');
    const broken = await checkedFetch(`${inject('gatewayUrl')}/v3/moderation/keywords`, {
      method: 'POST',
      headers: { appId: app.appId, apikey: app.fullAccessKey, 'content-type': 'multipart/form-data; boundary=nope' },
      body: 'this is not a form',
    });
    expect(broken.status).toBe(400);
  });

  it('a mask rule delivers the message with the matched words masked', async () => {
    await ruleOver('masker', 'mild', ['darn', 'heck'], 'maskMessage');
    const sent = await done(sendMessage(app, 'alice', text('carol', 'Darn it, what the heck.')));
    expect(sent.body.data.data.text).toBe('**** it, what the ****.');
    const seen = await eventually(() => messagesBetween('carol', 'alice'), (r) => texts(r).length > 0);
    expect(texts(seen)).toEqual(['**** it, what the ****.']);
  });

  it('flag → review → delete: the flagged message is in the queue with its reason, and deleted when disapproved', async () => {
    await done(app.call('POST', '/v3/moderation/reasons', { body: { id: 'spam', name: 'Spam', description: 'Unwanted ads' } }));
    const sent = await done(sendMessage(app, 'carol', text('alice', 'buy cheap watches')));
    const id = sent.body.data.id as string;
    const flagged = await done(app.call('POST', `/v3/messages/${id}/flagged`, { onBehalfOf: 'alice', body: { reasonId: 'spam', remark: 'ads again' } }));
    expect(flagged.body.data.success).toBe(true);
    const queue = await done(app.call('GET', '/v3/moderation/flagged-messages'));
    const entry = (queue.body.data as any[]).find((e) => e.id === id);
    expect(entry).toMatchObject({ status: 'pending', flags: [{ flaggedBy: 'alice', reasonId: 'spam', remark: 'ads again' }] });
    expect(entry.message).toMatchObject({ id, data: { text: 'buy cheap watches' } });

    await done(app.call('PATCH', `/v3/moderation/flagged-messages/${id}`, { body: { status: 'disapproved' } }));
    const message = await done(app.call('GET', `/v3/messages/${id}`));
    expect(message.body.data.deletedAt).toBeGreaterThan(0);
    const pending = await done(app.call('GET', '/v3/moderation/flagged-messages'));
    expect((pending.body.data as any[]).some((e) => e.id === id)).toBe(false);
    const reviewed = await done(app.call('GET', '/v3/moderation/reviewed-messages'));
    expect((reviewed.body.data as any[]).find((e) => e.id === id)).toMatchObject({ status: 'disapproved', queue: 'flagged' });
    expectError(await app.call('PATCH', `/v3/moderation/flagged-messages/${id}`, { body: { status: 'approved' } }), 409, 'ERR_MESSAGE_ALREADY_REVIEWED');

    // Approved: the message stays as it was.
    const kept = await done(sendMessage(app, 'carol', text('alice', 'a fine message')));
    const keptId = kept.body.data.id as string;
    await done(app.call('POST', `/v3/messages/${keptId}/flagged`, { onBehalfOf: 'alice', body: { reasonId: 'spam' } }));
    await done(app.call('PATCH', `/v3/moderation/flagged-messages/${keptId}`, { body: { status: 'approved' } }));
    expect((await done(app.call('GET', `/v3/messages/${keptId}`))).body.data.deletedAt).toBeUndefined();
  });

  it('a flag rule delivers the message and queues it for review with the rule as its reason', async () => {
    await ruleOver('watch', 'watch-list', ['casino'], 'flagMessage');
    const sent = await done(sendMessage(app, 'bob', text('carol', 'new casino in town')));
    const queue = await done(app.call('GET', '/v3/moderation/flagged-messages'));
    const entry = (queue.body.data as any[]).find((e) => e.id === sent.body.data.id);
    expect(entry.flags).toMatchObject([{ flaggedBy: 'moderation', match: { ruleId: 'watch', matched: ['casino'] } }]);
  });
});

describe('moderation bad input: a clear 4xx and nothing changed', () => {
  it('refuses wrong rules, lists, reasons and flags without changing anything', async () => {
    const rulesBefore = await done(app.call('GET', '/v3/moderation/rules'));
    const listsBefore = await done(app.call('GET', '/v3/moderation/keywords'));
    const badRules: Array<[unknown, number, string, string]> = [
      [{ id: 'r1', name: 'x', action: ['explode'], conditions: [{ operand: 'text', value: ['a'] }] }, 400, 'ERR_BAD_REQUEST', 'action'],
      [{ id: 'r1', name: 'x', action: ['blockMessage'], conditions: [] }, 400, 'ERR_BAD_REQUEST', 'conditions'],
      [{ id: 'r 1', name: 'x', action: ['blockMessage'], conditions: [{ operand: 'text', value: ['a'] }] }, 400, 'ERR_BAD_REQUEST', 'id'],
      [{ id: 'r1', name: 'x', action: ['blockMessage'], conditions: [{ operand: 'text', category: 'pattern', value: ['(unclosed'] }] }, 400, 'ERR_BAD_REQUEST', 'conditions.0.value.0'],
      [{ id: 'r1', name: 'x', action: ['blockMessage'], conditions: [{ operand: 'text', isKeywordsReferencePresent: true, value: ['no-such-list'] }] }, 404, 'ERR_KEYWORD_NOT_FOUND', 'no-such-list'],
      [{ id: 'no-banned', name: 'dup', action: ['blockMessage'], conditions: [{ operand: 'text', value: ['a'] }] }, 409, 'ERR_RULE_ALREADY_EXISTS', 'no-banned'],
      [[1, 2], 400, 'ERR_BAD_REQUEST', '(body)'],
    ];
    for (const [body, status, code, mention] of badRules) expectError(await app.call('POST', '/v3/moderation/rules', { body }), status, code, mention);
    expectError(await app.call('POST', '/v3/moderation/rules', { rawBody: '{"id": "r1",' }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('PUT', '/v3/moderation/rules/nope', { body: { enabled: false } }), 404, 'ERR_RULE_NOT_FOUND');
    expectError(await app.call('POST', '/v3/moderation/keywords', { body: { id: 'k1', name: 'k', category: 'word' } }), 400, 'ERR_BAD_REQUEST', 'searchTerms');
    expectError(await app.call('POST', '/v3/moderation/keywords', { body: { id: 'k1', name: 'k', category: 'sentence-similarity', searchTerms: 'a' } }), 400, 'ERR_BAD_REQUEST', 'category');
    expectError(await app.call('POST', '/v3/moderation/keywords', { body: { id: 'k1', name: 'k', category: 'word', searchTerms: ['x'.repeat(201)] } }), 400, 'ERR_BAD_REQUEST', 'searchTerms.0');
    expectError(await app.call('DELETE', '/v3/moderation/keywords/banned'), 409, 'ERR_KEYWORD_IN_USE', 'no-banned');
    expect((await done(app.call('GET', '/v3/moderation/rules'))).body).toEqual(rulesBefore.body);
    expect((await done(app.call('GET', '/v3/moderation/keywords'))).body).toEqual(listsBefore.body);

    const sent = await done(sendMessage(app, 'alice', text('bob', 'flag me maybe')));
    const id = sent.body.data.id as string;
    expectError(await app.call('POST', `/v3/messages/${id}/flagged`, { onBehalfOf: 'bob', body: { reasonId: 'no-such-reason' } }), 404, 'ERR_REASON_NOT_FOUND');
    expectError(await app.call('POST', `/v3/messages/${id}/flagged`, { onBehalfOf: 'bob', body: { remark: 7 } }), 400, 'ERR_BAD_REQUEST', 'reasonId');
    expectError(await app.call('POST', '/v3/messages/99999999/flagged', { body: { reasonId: 'spam' } }), 404, 'ERR_MESSAGE_ID_NOT_FOUND');
    expectError(await app.call('POST', `/v3/messages/${id}/flagged`, { onBehalfOf: 'carol', body: { reasonId: 'spam' } }), 403, 'ERR_MESSAGE_NO_ACCESS');
    expectError(await app.call('PATCH', `/v3/moderation/flagged-messages/${id}`, { body: { status: 'approved' } }), 404, 'ERR_MESSAGE_NOT_IN_REVIEW');
    expectError(await app.call('PATCH', `/v3/moderation/flagged-messages/${id}`, { body: { status: 'maybe' } }), 400, 'ERR_BAD_REQUEST', 'status');
    expectError(await app.call('PATCH', '/v3/moderation/blocked-messages/abc', { body: { status: 'approved' } }), 404, 'ERR_MESSAGE_ID_NOT_FOUND');
    await sleep(200);
    const queue = await done(app.call('GET', '/v3/moderation/flagged-messages'));
    expect((queue.body.data as any[]).some((e) => e.id === id)).toBe(false);

    expectError(await app.call('POST', '/v3/moderation/reasons', { body: { id: 'spam', name: 'again' } }), 409, 'ERR_REASON_ALREADY_EXISTS');
    expectError(await app.call('PUT', '/v3/moderation/reasons/spam', { body: {} }), 400, 'ERR_BAD_REQUEST');
    expectError(await app.call('GET', '/v3/moderation/reasons/nope'), 404, 'ERR_REASON_NOT_FOUND');
    expectError(await app.call('GET', '/v3/moderation/rules?limit=many'), 400, 'ERR_BAD_REQUEST', 'limit');
  });
});
