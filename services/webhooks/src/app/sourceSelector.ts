import type { RecordSelector } from '@chat/kafka';
import { triggerOfType } from '../domain/triggers.js';

/** What the selector asks of the webhook configuration (`WebhookDirectory`). */
export interface ListenedTriggers {
  listenedTriggers(appId: string, occurredAt: number): Promise<ReadonlySet<string>>;
}

/**
 * Which consumed records the delivery process needs, from their headers alone (ADR 0044). On the
 * source topics (the chat events that raise triggers) it keeps a record only when its type raises a
 * trigger that an enabled webhook of its app listens to; every other topic's records (configuration,
 * its own delivery log) it keeps, and so any record whose headers it cannot read.
 *
 * The app's triggers are read as of the record's timestamp, through the fenced configuration
 * directory (ADR 0035): a webhook created before the event was sent is seen, whichever replica
 * consumes it. A type that raises no trigger is skipped without that look-up.
 */
export function sourceSelector(sourceTopics: readonly string[], configuration: ListenedTriggers): RecordSelector {
  const sources = new Set(sourceTopics);
  return async (records) => {
    const triggers = records.map((r) => (sources.has(r.topic) && r.type !== undefined && r.appId !== undefined ? triggerOfType(r.type) : undefined));
    // One look-up per app in the batch, fenced at the time of its latest record that could raise a trigger.
    const latest = new Map<string, number>();
    records.forEach((r, i) => {
      if (triggers[i]) latest.set(r.appId!, Math.max(latest.get(r.appId!) ?? 0, r.timestamp));
    });
    const listened = new Map(await Promise.all([...latest].map(async ([appId, at]) => [appId, await configuration.listenedTriggers(appId, at)] as const)));
    return records.map((r, i) => {
      const trigger = triggers[i];
      if (trigger === undefined) return true;
      return trigger !== null && listened.get(r.appId!)!.has(trigger);
    });
  };
}
