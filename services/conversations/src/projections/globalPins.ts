import type { EventEnvelope, GlobalPin, GlobalPinnedConversationsReplaced } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

type Handled = EventEnvelope<'GlobalPinnedConversationsReplaced', GlobalPinnedConversationsReplaced>;

export interface GlobalPinsDoc {
  appId: string;
  pins: GlobalPin[];
}

/** The app-wide pin list, one document per app, read on every conversation render. */
export const globalPinsProjection: Projection<GlobalPinsDoc, Handled> = {
  name: 'global_pins',
  canHandle: (event: EventEnvelope): event is Handled => event.type === 'GlobalPinnedConversationsReplaced',
  documentIds: (event) => [event.appId],
  sourceOf: () => 'appPins',
  evolve: (_doc, event) => ({ appId: event.appId, pins: event.data.pinnedConversations }),
};
