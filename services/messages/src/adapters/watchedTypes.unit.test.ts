import { blockEventTypes, groupEventTypes, groupScopePermissionEventTypes, messageEventTypes, userLifecycleEventTypes } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { moderationSettingsProjection } from '../projections/moderation/moderationSettings.js';
import { ModerationReadModels } from './moderation/moderationReadModels.js';
import { MessagesReadModels } from './readModels.js';

describe('what the messages watch decodes', () => {
  it('every event that changes a fact or an app’s moderation settings', () => {
    for (const type of [...userLifecycleEventTypes, ...blockEventTypes, ...groupEventTypes, ...groupScopePermissionEventTypes]) {
      expect(MessagesReadModels.factEventTypes.has(type), type).toBe(true);
    }
    expect([...ModerationReadModels.settingsEventTypes]).toEqual([...moderationSettingsProjection.eventTypes]);
  });

  it('no send, nor any other event of a message', () => {
    const watched = new Set([...MessagesReadModels.factEventTypes, ...ModerationReadModels.settingsEventTypes]);
    expect(watched.has('MessageSent')).toBe(false);
    for (const type of messageEventTypes) expect(watched.has(type), type).toBe(false);
  });
});
