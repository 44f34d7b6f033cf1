import type { EventEnvelope } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import { describe, expect, it } from 'vitest';
import { appIdListProjection } from './appIdList.js';
import { findDocument } from './documentStore.js';
import { applyInMemory } from './projectionRuntime.js';

const list = appIdListProjection<EventEnvelope>({
  name: 'lists',
  eventTypes: ['Created', 'Added', 'Removed', 'Renamed'],
  creates: (event) => event.type === 'Created',
  added: (event) => (event.type === 'Added' ? String(event.data['id']) : undefined),
  removed: (event) => (event.type === 'Removed' ? String(event.data['id']) : undefined),
});
const at = (version: number, type: string, id?: string) => testEnvelope(type, 'app:app1', version, id ? { id } : {});
const history = [at(1, 'Created'), at(2, 'Added', 'a'), at(3, 'Added', 'b'), at(4, 'Renamed'), at(5, 'Added', 'c'), at(6, 'Removed', 'b')];

const stateAfter = async (events: EventEnvelope[]) => {
  const doc = await findDocument(await applyInMemory(list, events), 'app1');
  return doc && { appId: doc['appId'], ids: doc['ids'], complete: doc['complete'] };
};

describe('appIdListProjection', () => {
  it("keeps an app's ids in the order they were added, complete from the app's creation", async () => {
    expect(await stateAfter(history)).toEqual({ appId: 'app1', ids: ['a', 'c'], complete: true });
  });

  it('gives the same list whether events come once, redelivered, or one at a time', async () => {
    const expected = await stateAfter(history);
    expect(await stateAfter([...history, ...history.slice(1, 4), ...history])).toEqual(expected);
    const store = await applyInMemory(list, []);
    for (const event of [...history, history[2]!, history[1]!]) await applyInMemory(list, [event], store);
    const doc = await findDocument(store, 'app1');
    expect(doc && doc['ids']).toEqual(['a', 'c']);
  });

  it('marks a list started after the app was created as incomplete, and writes nothing for an event that adds nothing', async () => {
    expect(await stateAfter([at(5, 'Added', 'c')])).toEqual({ appId: 'app1', ids: ['c'], complete: false });
    expect(await stateAfter([at(4, 'Renamed')])).toBeNull();
  });
});
