import type { KnownEvent } from '@chat/contracts';
import type { OwnReadModels } from '@chat/eventsourcing';

/** What reacts to the service's own events besides its read models (the agents' replies). */
export interface OwnEventReaction {
  handle(events: readonly KnownEvent[]): Promise<void>;
}

/**
 * The one reader of the service's own topic (ADR 0084). Every command applies its events to the read
 * models before it answers, so reading them back only heals a gap a crash left between append and
 * apply: that is done here, first, for every event (idempotent: the projections skip what they show),
 * and then the reaction runs. A batch the reaction fails is retried whole, its healing included.
 */
export class OwnEvents {
  constructor(
    private readonly readModels: OwnReadModels,
    private readonly reaction: OwnEventReaction,
  ) {}

  async handle(events: readonly KnownEvent[]): Promise<void> {
    await this.readModels.apply(events);
    await this.reaction.handle(events);
  }
}
