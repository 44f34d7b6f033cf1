// A moderation rule as a tenant sets one up: a keyword list behind an enabled blocking rule on the
// message text. Texts the benchmarks send match none of the terms, so every send is judged in full and
// still delivered. Shared by moderation.mjs and cost.mjs.

/** Deterministic pseudo-words: `word('bad', n)` never meets the words a benchmark's texts are made of. */
export const word = (prefix, n) => `${prefix}${n.toString(36)}`;

/** `count` listed terms, `bad…`. */
export const blockedTerms = (count) => Array.from({ length: count }, (_, i) => word('bad', i * 7919));

/**
 * Creates the list `id` of `terms` and an enabled rule `<id>-rule` that blocks a message containing
 * any of them, then checks that the rule acts: a text with a listed term is refused.
 *
 * @param {import('./stack.mjs').BenchStack} stack
 * @param {import('./stack.mjs').BenchApp} app
 * @param {ReturnType<import('./httpClient.mjs').createGatewayClient>} client
 * @param {{ id: string, terms: string[], sender: string, receiver: string }} rule
 */
export async function addBlockingKeywordRule(stack, app, client, { id, terms, sender, receiver }) {
  await stack.api('POST', '/v3/moderation/keywords', { headers: app.chat, body: { id, name: id, category: 'word', searchTerms: terms } });
  await stack.api('POST', '/v3/moderation/rules', {
    headers: app.chat,
    body: { id: `${id}-rule`, name: `${id} rule`, action: ['blockMessage'], conditions: [{ operand: 'text', isKeywordsReferencePresent: true, value: [id] }] },
  });
  const refused = await client.request('POST', '/v3/messages', { ...app.chat, onbehalfof: sender }, { receiver, receiverType: 'user', data: { text: `x ${terms[Math.floor(terms.length / 2)]} y` } });
  if (refused.body?.error?.code !== 'ERR_BLOCKED_BY_EXTENSION') throw new Error(`the rule did not act: ${refused.status} ${JSON.stringify(refused.body ?? refused.error)}`);
}
