import { globalPinEventTypes } from '@chat/contracts';
import type { EventOf, GlobalPin } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

type Handled = EventOf<(typeof globalPinEventTypes)[number]>;

export interface GlobalPinsDoc {
  appId: string;
  pins: GlobalPin[];
}

/** The app-wide pin list, one document per app, read on every conversation render. */
export const globalPinsProjection: Projection<GlobalPinsDoc, Handled> = {
  name: 'global_pins',
  eventTypes: globalPinEventTypes,
  documentIds: (event) => [event.appId],
  sourceOf: () => 'appPins',
  evolve: (_doc, event) => ({ appId: event.appId, pins: event.data.pinnedConversations }),
};
