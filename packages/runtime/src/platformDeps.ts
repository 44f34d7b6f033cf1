import type { Probes } from '@chat/http';
import type { TopicSettings } from './config.js';

/**
 * What runService hands every service besides its store, broker and logger, for the service to pass
 * on to its event pipeline (services spread their deps into `createEventPipeline`).
 */
export interface PlatformDeps {
  /** Where the pipeline registers its readiness checks. */
  probes?: Probes;
  /** Partitions and replication of the topics the pipeline creates. */
  topicSettings?: TopicSettings;
}
