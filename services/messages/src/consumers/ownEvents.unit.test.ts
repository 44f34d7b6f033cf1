import type { EventEnvelope, KnownEvent } from '@chat/contracts';
import { testEnvelope as envelope } from '@chat/eventsourcing/testing';
import { describe, expect, it } from 'vitest';
import { OwnEvents } from './ownEvents.js';

const sent = (appId: string, id: string) =>
  ({ ...envelope('MessageSent', `conversation:${appId}:c`, Number(id), { id }), appId }) as unknown as KnownEvent;
const edited = envelope('MessageEdited', 'conversation:app1:c', 9, { id: '1' }) as unknown as KnownEvent;

describe('the own topic’s one reader', () => {
  const batch = [sent('app-agents', '1'), sent('app-plain', '2'), edited];

  it('applies every event of the batch to the read models (any app, any type), then reacts to the same batch', async () => {
    const steps: string[] = [];
    const readModels = { apply: (events: readonly EventEnvelope[]) => (steps.push(`apply ${events.map((e) => e.id).join(',')}`), Promise.resolve()) };
    const reaction = { handle: (events: readonly KnownEvent[]) => (steps.push(`react ${events.map((e) => e.id).join(',')}`), Promise.resolve()) };
    await new OwnEvents(readModels, reaction).handle(batch);
    const ids = batch.map((e) => e.id).join(',');
    expect(steps).toEqual([`apply ${ids}`, `react ${ids}`]);
  });

  it('a heal that fails runs no reaction; a reaction that fails fails the batch after the heal (retried whole)', async () => {
    const steps: string[] = [];
    const failingStore = { apply: () => Promise.reject(new Error('store away')) };
    const reaction = { handle: () => (steps.push('react'), Promise.resolve()) };
    await expect(new OwnEvents(failingStore, reaction).handle(batch)).rejects.toThrow('store away');
    expect(steps).toEqual([]);

    const store = { apply: () => (steps.push('apply'), Promise.resolve()) };
    const failingReaction = { handle: () => Promise.reject(new Error('agent away')) };
    await expect(new OwnEvents(store, failingReaction).handle(batch)).rejects.toThrow('agent away');
    expect(steps).toEqual(['apply']);
  });
});
