import type { Agent, MessageSent } from '@chat/contracts';
import type { RecordHeaders } from '@chat/kafka';
import { describe, expect, it } from 'vitest';
import { emptySettings } from '../../domain/moderation/moderationSettings.js';
import { AgentReplies, agentsAddressed } from './agentReplies.js';
import type { AgentRepliesDeps } from './agentReplies.js';

const agent = (uid: string, extra: Partial<Agent> = {}): Agent => ({
  uid,
  name: uid,
  isActive: true,
  integrateWith: 'ag-ui',
  integrationType: 'agent',
  integrationMeta: { url: 'http://agent', headers: {} },
  tools: [],
  actions: [],
  metaData: {},
  createdAt: 100,
  updatedAt: 100,
  ...extra,
});
const message = (extra: Partial<MessageSent>): MessageSent => ({
  id: '1',
  conversationId: 'c',
  sender: 'alice',
  receiver: 'bot',
  receiverType: 'user',
  category: 'message',
  type: 'text',
  data: { text: 'hi' },
  sentAt: 200,
  ...extra,
});

describe('which agents a message is for', () => {
  const settings = { ...emptySettings(), agents: [agent('bot'), agent('other'), agent('off', { isActive: false })] };
  const uids = (m: MessageSent) => agentsAddressed(m, settings).map((a) => a.uid);

  it('the receiver, or the agents mentioned in a group; active ones only', () => {
    expect(uids(message({}))).toEqual(['bot']);
    expect(uids(message({ receiver: 'off' }))).toEqual([]);
    expect(uids(message({ receiverType: 'group', receiver: 'g', mentionedUids: ['other', 'off', 'carol'] }))).toEqual(['other']);
    expect(uids(message({ receiverType: 'group', receiver: 'g' }))).toEqual([]);
  });

  it('never an agent’s own message, history, non-text, or a message older than the agent', () => {
    expect(uids(message({ sender: 'other' }))).toEqual([]);
    expect(uids(message({ imported: true }))).toEqual([]);
    expect(uids(message({ category: 'custom', data: { customData: {} } }))).toEqual([]);
    expect(uids(message({ sentAt: 99 }))).toEqual([]);
  });
});

describe('which records the agent consumer decodes', () => {
  const withAgents = new Set(['app-agents']);
  const asked: string[] = [];
  const moderation = {
    moderationOf: (appId: string) => {
      asked.push(appId);
      return Promise.resolve({ settings: { ...emptySettings(), agents: withAgents.has(appId) ? [agent('bot')] : [] } });
    },
  };
  const replies = new AgentReplies({ moderation } as unknown as AgentRepliesDeps);
  const record = (type: string | undefined, appId: string | undefined): RecordHeaders => ({ topic: 'messages', type, appId, keyId: undefined, timestamp: 1 });

  it('sends of apps with agents, and what the headers do not say; not other apps, not other events', async () => {
    asked.length = 0;
    const kept = await replies.select([
      record('MessageSent', 'app-agents'),
      record('MessageSent', 'app-plain'),
      record('MessageEdited', 'app-agents'),
      record(undefined, 'app-agents'),
      record(undefined, 'app-plain'),
      record('MessageSent', undefined),
      record('MessageSent', 'app-plain'),
    ]);
    expect(kept).toEqual([true, false, false, true, false, true, false]);
    // Each app's settings are read once per batch.
    expect(asked.sort()).toEqual(['app-agents', 'app-plain']);
  });
});
