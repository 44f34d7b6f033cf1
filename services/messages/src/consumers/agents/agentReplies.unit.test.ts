import type { Agent, MessageSent } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { emptySettings } from '../../domain/moderation/moderationSettings.js';
import { agentsAddressed } from './agentReplies.js';

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
