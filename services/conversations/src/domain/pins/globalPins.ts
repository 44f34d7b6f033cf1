import { ApiError } from '@chat/contracts';
import type { GlobalPin, GlobalPinnedConversationsReplaced } from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';

/** CometChat: at most five conversations pinned app-wide. */
export const MAX_GLOBAL_PINS = 5;

export interface GlobalPinTarget {
  conversationType: 'user' | 'group';
  conversationWith: string;
}

export interface ReplaceGlobalPins {
  type: 'ReplaceGlobalPins';
  pins: GlobalPinTarget[];
  now: number;
}

export type GlobalPinsEvent = DomainEvent<'GlobalPinnedConversationsReplaced', GlobalPinnedConversationsReplaced>;

export interface GlobalPinsState {
  pins: GlobalPin[];
}

export function sameTarget(a: GlobalPinTarget, b: GlobalPinTarget): boolean {
  return a.conversationType === b.conversationType && a.conversationWith === b.conversationWith;
}

function decide(command: ReplaceGlobalPins, state: GlobalPinsState): GlobalPinsEvent[] {
  if (command.pins.length > MAX_GLOBAL_PINS) {
    throw new ApiError(
      'ERR_SYSTEM_PINNED_CONVERSATIONS_LIMIT_EXCEEDED',
      `An app can pin at most ${MAX_GLOBAL_PINS} conversations for every user.`,
    );
  }
  command.pins.forEach((pin, index) => {
    if (command.pins.findIndex((other) => sameTarget(other, pin)) !== index) {
      throw new ApiError('ERR_BAD_REQUEST', `pinnedConversations.${index}: ${pin.conversationWith} is listed twice.`);
    }
  });
  // A conversation that stays pinned keeps the time it was first pinned.
  const next: GlobalPin[] = command.pins.map((pin) => ({
    ...pin,
    pinnedAt: state.pins.find((existing) => sameTarget(existing, pin))?.pinnedAt ?? command.now,
  }));
  const unchanged =
    next.length === state.pins.length && next.every((pin, i) => sameTarget(pin, state.pins[i] as GlobalPin));
  if (unchanged) return [];
  return [{ type: 'GlobalPinnedConversationsReplaced', data: { pinnedConversations: next } }];
}

export const globalPinsDecider: Decider<GlobalPinsState, ReplaceGlobalPins, GlobalPinsEvent> = {
  initialState: () => ({ pins: [] }),
  decide,
  evolve: (_state, event) => ({ pins: event.data.pinnedConversations }),
  snapshotVersion: 1,
};

export function globalPinsStream(appId: string): string {
  return `app-pins:${appId}`;
}
