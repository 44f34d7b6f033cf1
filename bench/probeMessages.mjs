// The one-on-one `MessageSent` envelopes the read-model probes apply (conversations-writes.mjs,
// conversations-apply-cpu.mjs): pair n is `probe-receiver-n` with `probe-sender-n` (or with one of `hubs`
// users, `probe-hub-<n mod hubs>`), the two sides taking turns, versions and message ids in order.

/** A source of messages for `appId`; `sent(pair)` is the next message of that pair's conversation. */
export function probeMessages(appId, { hubs = 0 } = {}) {
  let sequence = 0;
  let messageId = 100_000;
  const versions = new Map();
  const t0 = Date.now();
  return function sent(pair) {
    const a = hubs ? `probe-hub-${pair % hubs}` : `probe-sender-${pair}`;
    const b = `probe-receiver-${pair}`;
    const conversationId = a < b ? `${a}_user_${b}` : `${b}_user_${a}`;
    const streamId = `messages:${appId}:${conversationId}`;
    const version = (versions.get(streamId) ?? 0) + 1;
    versions.set(streamId, version);
    const [sender, receiver] = version % 2 ? [a, b] : [b, a];
    sequence += 1;
    messageId += 1;
    const at = t0 + sequence;
    return {
      id: `probe-${sequence}`, type: 'MessageSent', schemaVersion: 1, appId, streamId, version,
      occurredAt: new Date(at).toISOString(), actor: { keyId: 'k', scope: 'fullAccess' }, correlationId: `c${sequence}`, causationId: null,
      data: {
        id: String(messageId), conversationId, sender, receiver, receiverType: 'user', category: 'message', type: 'text',
        data: { text: `message number ${sequence} of the writes probe`, entities: {} }, sentAt: Math.floor(at / 1000),
      },
    };
  };
}
