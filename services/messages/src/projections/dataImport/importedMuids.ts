import { messageEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

/**
 * Which imported `muid` became which message: the data import's idempotency, found by `_id` (the one
 * look-up FerretDB serves from an index) so a rerun of a migration skips what is there already.
 */
export interface ImportedMuidDoc {
  appId: string;
  muid: string;
  id: string;
}

type Handled = EventOf<(typeof messageEventTypes)[number]>;

export function importedMuidId(appId: string, muid: string): string {
  return `${appId}:${muid}`;
}

function importedMuid(event: Handled): string | undefined {
  return event.type === 'MessageSent' && event.data.imported === true ? event.data.muid : undefined;
}

export const importedMuidsProjection: Projection<ImportedMuidDoc, Handled> = {
  name: 'imported_muids',
  eventTypes: messageEventTypes,
  documentIds(event) {
    const muid = importedMuid(event);
    return muid === undefined ? [] : [importedMuidId(event.appId, muid)];
  },
  // An import id is recorded once: its document exists only on a redelivery.
  creates: () => true,
  evolve(doc, event) {
    const muid = importedMuid(event);
    if (doc || muid === undefined) return doc;
    return { appId: event.appId, muid, id: event.data.id };
  },
};
