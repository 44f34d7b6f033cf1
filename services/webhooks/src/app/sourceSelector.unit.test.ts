import type { RecordHeaders } from '@chat/kafka';
import { describe, expect, it } from 'vitest';
import { sourceSelector } from './sourceSelector.js';

const record = (topic: string, type: string | undefined, appId: string | undefined, timestamp = 100): RecordHeaders => ({ topic, type, appId, keyId: undefined, timestamp });

/** Configuration as the directory would answer it, recording what it was asked. */
function configuration(listening: Record<string, string[]>) {
  const asked: Array<[string, number]> = [];
  return {
    asked,
    listenedTriggers: (appId: string, at: number) => {
      asked.push([appId, at]);
      return Promise.resolve(new Set(listening[appId] ?? []));
    },
  };
}

const sources = ['chat.messages.events', 'chat.conversations.events'];

describe('the delivery process skips, from headers, the events no webhook listens to', () => {
  it('keeps a source event only when an enabled webhook of its app listens to its trigger', async () => {
    const config = configuration({ a1: ['message_sent'], a2: ['message_edited'] });
    const kept = await sourceSelector(sources, config)([
      record('chat.messages.events', 'MessageSent', 'a1'),
      record('chat.messages.events', 'MessageSent', 'a2'),
      record('chat.messages.events', 'MessageEdited', 'a2'),
      record('chat.messages.events', 'MessageSent', 'a3'),
      record('chat.conversations.events', 'ConversationRead', 'a1'),
    ]);
    expect(kept).toEqual([true, false, true, false, false]);
  });

  it('skips a type that raises no trigger without asking the configuration', async () => {
    const config = configuration({ a1: ['message_sent'] });
    const kept = await sourceSelector(sources, config)([record('chat.messages.events', 'MessagePinned', 'a1'), record('chat.conversations.events', 'ConversationPinned', 'a1')]);
    expect(kept).toEqual([false, false]);
    expect(config.asked).toEqual([]);
  });

  it('asks once per app, as of its latest record that could raise a trigger (the fence covers every earlier one)', async () => {
    const config = configuration({ a1: ['message_sent'] });
    await sourceSelector(sources, config)([
      record('chat.messages.events', 'MessageSent', 'a1', 100),
      record('chat.messages.events', 'MessageSent', 'a1', 300),
      record('chat.messages.events', 'MessageReactionAdded', 'a2', 200),
      record('chat.messages.events', 'MessageSent', 'a1', 250),
    ]);
    expect(config.asked.sort()).toEqual([
      ['a1', 300],
      ['a2', 200],
    ]);
  });

  it('keeps every record of a non-source topic, and any record whose headers it cannot read', async () => {
    const config = configuration({});
    const kept = await sourceSelector(sources, config)([
      record('chat.management.events', 'WebhookCreated', 'a1'),
      record('chat.webhooks.events', 'DeliveryQueued', 'a1'),
      record('chat.messages.events', undefined, 'a1'),
      record('chat.messages.events', 'MessageSent', undefined),
    ]);
    expect(kept).toEqual([true, true, true, true]);
  });

  it('a configuration that cannot be read fails the selection (the batch is retried, nothing skipped)', async () => {
    const select = sourceSelector(sources, { listenedTriggers: () => Promise.reject(new Error('store down')) });
    await expect(Promise.resolve(select([record('chat.messages.events', 'MessageSent', 'a1')]))).rejects.toThrow('store down');
  });
});
