import type { EventEnvelope } from '@chat/contracts';
import { testEnvelope as envelopeForTest } from '@chat/eventsourcing/testing';

// Event builders shared by the projection tests (the pure ones and the one on FerretDB).

/** Epoch ms of the test clock's zero. */
export const T0 = 1_700_000_000_000;

export function testEnvelope(
  type: string,
  streamId: string,
  version: number,
  data: Record<string, unknown>,
  occurredAtMs = T0,
): EventEnvelope {
  return envelopeForTest(type, streamId, version, data, occurredAtMs);
}

/** Message `version` of the conversation a_user_b, sent at second 99 + version (100, 101, …). */
export function messageSent(version: number, id: string, sender: string, receiver: string, data: Record<string, unknown> = {}) {
  return testEnvelope(
    'MessageSent',
    'messages:app1:a_user_b',
    version,
    {
      id,
      conversationId: 'a_user_b',
      sender,
      receiver,
      receiverType: 'user',
      category: 'message',
      type: 'text',
      data: { text: `m${id}`, ...data },
      sentAt: 99 + version,
    },
    (99 + version) * 1000,
  );
}

/** User a pins or unpins its conversation with b (event `version` of a's pin stream). */
export function pinChanged(type: 'ConversationPinned' | 'ConversationUnpinned', version: number, pinnedAt = 50) {
  return testEnvelope(type, 'conversation-pins:app1:a', version, {
    uid: 'a',
    conversationId: 'a_user_b',
    conversationType: 'user',
    conversationWith: 'b',
    ...(type === 'ConversationPinned' ? { pinnedAt } : {}),
  });
}
