import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { asyncApiDocument } from './asyncapi.js';
import { eventCatalog, retiredEventTypes, topicOf } from './events/registry.js';
import type { EventType } from './events/registry.js';

describe('the published AsyncAPI document', () => {
  it('is the one the schemas generate (run `npm run asyncapi` after changing an event)', () => {
    const committed: unknown = JSON.parse(readFileSync(new URL('../../../docs/asyncapi.json', import.meta.url), 'utf8'));
    expect(committed).toEqual(asyncApiDocument());
  });

  it('lists every event type on the topic of the service that publishes it', () => {
    const document = asyncApiDocument() as { channels: Record<string, { address: string; messages: Record<string, unknown> }> };
    for (const type of Object.keys(eventCatalog) as EventType[]) {
      const channel = Object.values(document.channels).find((c) => c.address === topicOf(type));
      expect(Object.keys(channel?.messages ?? {}), type).toContain(`${type}.v1`);
    }
    expect(topicOf('GroupMembersAdded')).toBe('chat.conversations.events');
    expect(topicOf('UsersBlocked')).toBe('chat.users.events');
  });

  it('says which event types are no longer published', () => {
    const document = asyncApiDocument() as { components: { messages: Record<string, { summary?: string; description?: string }> } };
    expect(document.components.messages['NotificationAttempted.v1']).toMatchObject({ summary: 'Retired: no longer published.', description: retiredEventTypes.NotificationAttempted });
    expect(document.components.messages['MessageSent.v1']?.summary).toBeUndefined();
  });
});
