import type { AsOf, EventEnvelope, RequestContext } from '@chat/contracts';
import { encodeConsistencyToken, parseAsOf } from '@chat/contracts';
import { testEnvelope as envelope } from '@chat/eventsourcing/testing';
import { applyInMemory } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import { messageDocId, messagesProjection } from '../projections/messages.js';
import type { MessageDoc } from '../projections/messages.js';
import { MessagesAsOf } from './messagesAsOf.js';

const stream = 'messages:app1:a_user_b';
const sent = (version: number, id: string, at: number) =>
  envelope(
    'MessageSent',
    stream,
    version,
    { id, conversationId: 'a_user_b', sender: 'a', receiver: 'b', receiverType: 'user', category: 'message', type: 'text', data: { text: `text ${id}` }, sentAt: at / 1000 },
    at,
  );
const edited = (version: number, id: string, text: string, at: number) =>
  envelope('MessageEdited', stream, version, { id, conversationId: 'a_user_b', data: { text }, editedBy: 'a', editedAt: at / 1000 }, at);
const deleted = (version: number, id: string, at: number, permanent = false) =>
  envelope('MessageDeleted', stream, version, { id, conversationId: 'a_user_b', sender: 'a', permanent, deletedBy: 'a', deletedAt: at / 1000 }, at);

const history: EventEnvelope[] = [
  sent(1, '10', 1_000),
  sent(2, '11', 2_000),
  edited(3, '10', 'changed', 3_000),
  deleted(4, '11', 4_000),
  sent(5, '12', 5_000),
];

/** The conversation's stream as the commit store gives it, counting what a read pulled. */
function readerOf(events: readonly EventEnvelope[]) {
  const reader = {
    pulled: 0,
    async *streamEvents(streamId: string) {
      for (const event of events.filter((e) => e.streamId === streamId)) {
        reader.pulled += 1;
        yield await Promise.resolve(event);
      }
    },
  };
  return reader;
}

/** The live read model after the whole history, through the same projection (what erasure is checked against). */
async function liveAfter(events: readonly EventEnvelope[]) {
  const store = await applyInMemory(messagesProjection, events);
  return {
    findMessages: (_appId: string, ids: readonly string[]) =>
      Promise.resolve(
        new Map(
          ids.flatMap((id) => {
            const doc = store.document<MessageDoc>(messageDocId('app1', id));
            return doc ? [[id, doc] as const] : [];
          }),
        ),
      ),
  };
}

const context: RequestContext = { actor: { appId: 'app1', uid: 'a', keyId: 'k', scope: 'fullAccess' }, requestId: 'r' };
const token = (version: number): AsOf => parseAsOf(encodeConsistencyToken(new Map([[stream, version]])), 'app1', 10_000);
const texts = (items: Record<string, unknown>[]) => items.map((item) => `${String(item['id'])}:${String((item['data'] as { text?: string }).text)}${item['deletedAt'] ? ':deleted' : ''}`);

describe('a conversation’s messages as of a token or a time', () => {
  it('shows each state the log went through, by token and by time', async () => {
    const reader = readerOf(history);
    const asOf = new MessagesAsOf({ events: reader, readModels: await liveAfter(history), maxEvents: 100 });
    const at = async (bound: AsOf) => texts((await asOf.list(context, 'a_user_b', bound, null, 100)).items);
    expect(await at(token(1))).toEqual(['10:text 10']);
    expect(await at(token(2))).toEqual(['10:text 10', '11:text 11']);
    expect(await at(token(3))).toEqual(['10:changed', '11:text 11']);
    expect(await at(token(4))).toEqual(['10:changed', '11:text 11:deleted']);
    expect(await at({ kind: 'time', at: 3_500 })).toEqual(['10:changed', '11:text 11']);
    expect(await at({ kind: 'time', at: 999 })).toEqual([]);
    expect(await at({ kind: 'time', at: 9_000 })).toEqual(['10:changed', '11:text 11:deleted', '12:text 12']);
  });

  it('reads the stream only up to its bound', async () => {
    const reader = readerOf(history);
    const asOf = new MessagesAsOf({ events: reader, readModels: await liveAfter(history), maxEvents: 100 });
    await asOf.list(context, 'a_user_b', token(2), null, 100);
    // The two events kept and the first one past the bound.
    expect(reader.pulled).toBe(3);
  });

  it('the end state is the live read model’s, through the same projection', async () => {
    const live = await applyInMemory(messagesProjection, history);
    const asOf = new MessagesAsOf({ events: readerOf(history), readModels: await liveAfter(history), maxEvents: 100 });
    const { items } = await asOf.list(context, 'a_user_b', token(5), null, 100);
    expect(items.map((item) => item['id'])).toEqual([...live.snapshot<MessageDoc>().values()].map((doc) => doc.id).sort());
  });

  it('pages like the live list: after or before an id, at most `limit`', async () => {
    const asOf = new MessagesAsOf({ events: readerOf(history), readModels: await liveAfter(history), maxEvents: 100 });
    const ids = async (cursor: Parameters<MessagesAsOf['list']>[3], limit: number) =>
      (await asOf.list(context, 'a_user_b', token(5), cursor, limit)).items.map((item) => item['id']);
    expect(await ids(null, 2)).toEqual(['10', '11']);
    expect(await ids({ field: 'seq', direction: 'after', value: 10 }, 5)).toEqual(['11', '12']);
    expect(await ids({ field: 'seq', direction: 'before', value: Number.MAX_SAFE_INTEGER }, 2)).toEqual(['11', '12']);
    expect(await ids({ field: 'sentAt', direction: 'before', value: 2 }, 5)).toEqual(['10']);
  });

  it('a message deleted permanently since stays erased in the past', async () => {
    const erased = [...history, deleted(6, '10', 6_000, true)];
    const asOf = new MessagesAsOf({ events: readerOf(erased), readModels: await liveAfter(erased), maxEvents: 100 });
    expect(texts((await asOf.list(context, 'a_user_b', token(2), null, 100)).items)).toEqual(['11:text 11']);
  });

  it('refuses a token that names no write of this conversation, and a history longer than allowed', async () => {
    const asOf = new MessagesAsOf({ events: readerOf(history), readModels: await liveAfter(history), maxEvents: 3 });
    const other = parseAsOf(encodeConsistencyToken(new Map([['messages:app1:other', 1]])), 'app1', 10_000);
    await expect(asOf.list(context, 'a_user_b', other, null, 100)).rejects.toMatchObject({ code: 'ERR_BAD_REQUEST', status: 400 });
    await expect(asOf.list(context, 'a_user_b', token(3), null, 100)).resolves.toBeDefined();
    await expect(asOf.list(context, 'a_user_b', token(4), null, 100)).rejects.toMatchObject({ code: 'ERR_HISTORY_TOO_LONG', status: 422 });
  });
});
