import type { KnownEvent } from '@chat/contracts';
import type { RecordHeaders } from '@chat/kafka';
import type { ConfigurationFence } from '@chat/runtime';

export interface ConfiguredAppsOptions {
  /** The apps whose stored configuration has a provider (read once, when the watch runs). */
  listConfigured(): Promise<readonly string[]>;
  /** Event types the consumer applies (its projections') besides the message it may notify of. */
  handledTypes: ReadonlySet<string>;
  /** The configuration topic's fence: the watch has seen every configuration event before a time. */
  fence: ConfigurationFence;
}

/** The one event type that may notify someone; every other type is wanted only by a projection. */
const NOTIFYING_TYPE = 'MessageSent';

/**
 * Which apps may have a notification provider, in memory on every replica, so that the consumer skips
 * a message of any other app from its Kafka headers alone, without decoding it (ADR 0043). Without a
 * provider the notifier decides nothing (push tokens included), so nothing is lost.
 *
 * - The set is read from the read model once this replica's watch runs; from then on the watch (which
 *   sees every configuration event, from where the projection stood) adds each app that saves a
 *   provider. Loaded after the watch starts, nothing falls between the two.
 * - An app absent from the set is skipped only once the fence has passed the message's production
 *   time: a provider saved (answered) before the message was sent is then in the set, whichever
 *   replica handles the message — the same rule the directory keeps for every configuration.
 * - Only "has none" must be exact: an app stays in the set after its last provider goes (until the
 *   process starts again). That costs a decode and a directory look-up, never a notification.
 */
export class ConfiguredApps {
  private readonly apps = new Set<string>();
  private loading: Promise<void> | null = null;

  constructor(private readonly options: ConfiguredAppsOptions) {}

  /** Configuration events seen on this replica's watch. */
  observe(events: readonly KnownEvent[]): void {
    for (const event of events) if (event.type === 'NotificationProviderSaved') this.apps.add(event.appId);
  }

  /** Which records the consumer decodes (the pipeline's `select`; false: left undecoded). */
  async select(records: readonly RecordHeaders[]): Promise<boolean[]> {
    const kept = records.map((r) => r.type === undefined || r.type === NOTIFYING_TYPE || this.options.handledTypes.has(r.type));
    const candidates = records.flatMap((r, i) => (r.type === NOTIFYING_TYPE && r.appId !== undefined ? [i] : []));
    if (candidates.length === 0) return kept;
    await this.load();
    const quiet = candidates.filter((i) => !this.apps.has(records[i]!.appId!));
    if (quiet.length === 0) return kept;
    await this.options.fence.pass(Math.max(...quiet.map((i) => records[i]!.timestamp)));
    for (const i of quiet) kept[i] = this.apps.has(records[i]!.appId!);
    return kept;
  }

  private load(): Promise<void> {
    this.loading ??= this.options.listConfigured().then(
      (ids) => {
        for (const id of ids) this.apps.add(id);
      },
      (error: unknown) => {
        this.loading = null; // the consumer treats it as an outage and asks again
        throw error;
      },
    );
    return this.loading;
  }
}
