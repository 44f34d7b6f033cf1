import type { DeliveryAttempted, DeliveryQueued, DeliveryRequeued } from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';

export function deliveryStreamId(appId: string, deliveryId: string): string {
  return `delivery:${appId}:${deliveryId}`;
}

/** Plain JSON (stored as the commit's snapshot); the body stays in the event and the read model. */
export type DeliveryState =
  | { status: 'absent' }
  | {
      status: 'pending' | 'delivered' | 'failed';
      appId: string;
      webhookId: string;
      deliveryId: string;
      attempts: number;
      /** Attempts since it was last (re)queued, and when that round's first attempt was: the retry window. */
      roundAttempts: number;
      roundStartedAt: number | null;
    };

export type DeliveryEvent =
  | DomainEvent<'DeliveryQueued', DeliveryQueued>
  | DomainEvent<'DeliveryAttempted', DeliveryAttempted>
  | DomainEvent<'DeliveryRequeued', DeliveryRequeued>;

export type DeliveryCommand =
  | { type: 'Queue'; delivery: DeliveryQueued }
  /** `attempt` is the number the sender used; an attempt already recorded is not recorded twice. */
  | { type: 'RecordAttempt'; attempt: Omit<DeliveryAttempted, 'appId' | 'webhookId' | 'deliveryId'> }
  | { type: 'Requeue'; at: number }
  /**
   * A first attempt that succeeded before its delivery was stored: queued and delivered in one
   * commit (one stored document instead of an insert and an update). If the delivery is stored
   * already (its source event came again), this is an ordinary attempt record.
   */
  | { type: 'QueueDelivered'; delivery: DeliveryQueued; attempt: Omit<DeliveryAttempted, 'appId' | 'webhookId' | 'deliveryId' | 'attempt'> };

function decide(command: DeliveryCommand, state: DeliveryState): DeliveryEvent[] {
  switch (command.type) {
    case 'Queue':
      // A source event redelivered by Kafka maps to the same delivery id: queued once.
      return state.status === 'absent' ? [{ type: 'DeliveryQueued', data: command.delivery }] : [];
    case 'RecordAttempt': {
      if (state.status !== 'pending' || command.attempt.attempt !== state.attempts + 1) return [];
      const { appId, webhookId, deliveryId } = state;
      return [{ type: 'DeliveryAttempted', data: { ...command.attempt, appId, webhookId, deliveryId } }];
    }
    case 'QueueDelivered': {
      const queued = state.status === 'absent' ? decide({ type: 'Queue', delivery: command.delivery }, state) : [];
      const after = queued.reduce(evolve, state);
      const attempt = { ...command.attempt, attempt: after.status === 'absent' ? 1 : after.attempts + 1 };
      return [...queued, ...decide({ type: 'RecordAttempt', attempt }, after)];
    }
    case 'Requeue': {
      // A pending delivery is already on its way; requeueing it would only reset its retry window.
      if (state.status === 'absent' || state.status === 'pending') return [];
      const { appId, webhookId, deliveryId } = state;
      return [{ type: 'DeliveryRequeued', data: { appId, webhookId, deliveryId, at: command.at } }];
    }
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${JSON.stringify(unknown)}`);
    }
  }
}

function evolve(state: DeliveryState, event: DeliveryEvent): DeliveryState {
  switch (event.type) {
    case 'DeliveryQueued': {
      const { appId, webhookId, deliveryId } = event.data;
      return { status: 'pending', appId, webhookId, deliveryId, attempts: 0, roundAttempts: 0, roundStartedAt: null };
    }
    case 'DeliveryAttempted': {
      if (state.status === 'absent') return state;
      const outcome = event.data.outcome;
      return {
        ...state,
        status: outcome === 'delivered' ? 'delivered' : outcome === 'retrying' ? 'pending' : 'failed',
        attempts: event.data.attempt,
        roundAttempts: state.roundAttempts + 1,
        roundStartedAt: state.roundStartedAt ?? event.data.at - event.data.latencyMs,
      };
    }
    case 'DeliveryRequeued':
      return state.status === 'absent' ? state : { ...state, status: 'pending', roundAttempts: 0, roundStartedAt: null };
    default: {
      const unknown: never = event;
      throw new Error(`unknown event ${JSON.stringify(unknown)}`);
    }
  }
}

export const deliveryDecider: Decider<DeliveryState, DeliveryCommand, DeliveryEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve,
  decide,
  snapshotVersion: 1,
};
