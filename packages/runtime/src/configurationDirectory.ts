import type { EventEnvelope } from '@chat/contracts';
import { backoffDelay } from '@chat/eventsourcing';
import type { Backoff } from '@chat/eventsourcing';
import { sourceOfStream } from '@chat/mongo';
import type { WatchedProjection } from '@chat/mongo';

/** Read-model documents that hold part of an app's configuration, and how to read where they stand. */
export interface ConfigurationDocuments {
  /** The projection that writes them: which events change which documents, in which order. */
  projection: WatchedProjection;
  /** Per stored document (absent ones left out), the last version applied per source: reads by `_id`. */
  positions(ids: readonly string[]): Promise<Map<string, Record<string, number>>>;
}

/** When the directory may trust what its watch has seen: `TopicFence` in production. */
export interface ConfigurationFence {
  pass(time: number): Promise<void>;
}

export interface ConfigurationDirectoryOptions<T> {
  /** Reads an app's configuration from this service's read model (ready to use: secrets opened…). */
  load(appId: string): Promise<T>;
  documents: readonly ConfigurationDocuments[];
  fence: ConfigurationFence;
  /** The longest a load waits for the read model to apply a configuration event the watch has seen. */
  appliedTimeoutMs: number;
  /** A load that went on before the read model showed an event it waited for: for a log line. */
  onAppliedTimeout?(appId: string, waitedFor: readonly AwaitedPosition[]): void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** A configuration event seen on the watch: the document it changes and the version it brings there. */
export interface AwaitedPosition {
  documentId: string;
  source: string;
  version: number;
}

interface Awaited extends AwaitedPosition {
  documents: ConfigurationDocuments;
}

const POLL_BACKOFF: Backoff = { baseMs: 10, maxMs: 200, jitter: 'equal' };

/**
 * Each app's configuration, loaded from this service's read model and kept in memory, exact on every
 * replica (ADR 0035). Three rules make it so:
 *
 * - The watch (`observe`, every replica sees every configuration event) forgets the app at once and
 *   remembers the document version the event brings.
 * - A load first waits (polling those documents by `_id`, bounded) until the read model has applied
 *   every version the watch announced, so what it keeps is never older than what the watch has seen.
 * - `get(appId, occurredAt)` for an event that happened at `occurredAt` first passes the fence: the
 *   watch has seen everything that was on the configuration topic then. A configuration write answered
 *   before the event happened is thus applied to that event, whichever replica handles it.
 */
export class ConfigurationDirectory<T> {
  readonly counters = { loads: 0, appliedTimeouts: 0 };
  private readonly entries = new Map<string, Promise<T>>();
  private readonly awaited = new Map<string, Map<string, Awaited>>();
  private readonly byType = new Map<string, ConfigurationDocuments[]>();
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(private readonly options: ConfigurationDirectoryOptions<T>) {
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? Date.now;
    for (const documents of options.documents) {
      for (const type of documents.projection.eventTypes) this.byType.set(type, [...(this.byType.get(type) ?? []), documents]);
    }
  }

  /** Whether the event changes an app's configuration (one of the documents' projections reads it). */
  isConfiguration(event: EventEnvelope): boolean {
    return this.byType.has(event.type);
  }

  /**
   * The app's configuration, current for an event that occurred at `occurredAt` (epoch ms); without
   * it, as current as this replica's watch is now (a delivery retried for an event already fenced).
   */
  async get(appId: string, occurredAt?: number): Promise<T> {
    if (occurredAt !== undefined) await this.options.fence.pass(occurredAt);
    let entry = this.entries.get(appId);
    if (!entry) {
      entry = this.loadWhenApplied(appId);
      this.entries.set(appId, entry);
      const loaded = entry;
      loaded.catch(() => {
        if (this.entries.get(appId) === loaded) this.entries.delete(appId);
      });
    }
    return entry;
  }

  /** Configuration events seen on this replica's watch, perhaps before the read model has them. */
  observe(events: readonly EventEnvelope[]): void {
    for (const event of events) {
      for (const note of this.notesOf(event)) {
        this.entries.delete(event.appId);
        if (!note) continue; // no order to wait for: the next load is as good as any
        const pending = this.awaited.get(event.appId) ?? new Map<string, Awaited>();
        if ((pending.get(note.key)?.version ?? 0) < event.version) pending.set(note.key, { ...note.awaited, version: event.version });
        this.awaited.set(event.appId, pending);
      }
    }
  }

  /**
   * Events this process's own projection has just applied: the apps whose configuration any of them
   * changed load afresh on their next call (the read model already shows the change), and a version
   * the watch announced that the read model now shows is no longer awaited. Without that, an app that
   * never loads (notifications' recipients of an app with no provider) kept every note its watch took.
   */
  applied(events: readonly EventEnvelope[]): void {
    for (const event of events) {
      if (!this.isConfiguration(event)) continue;
      this.entries.delete(event.appId);
      const pending = this.awaited.get(event.appId);
      if (!pending) continue;
      for (const note of this.notesOf(event)) {
        if (note && (pending.get(note.key)?.version ?? Infinity) <= event.version) pending.delete(note.key);
      }
      if (pending.size === 0) this.awaited.delete(event.appId);
    }
  }

  /** Versions the watch announced and no load has seen applied yet, over every app (a gauge of memory). */
  get awaitedVersions(): number {
    let count = 0;
    for (const pending of this.awaited.values()) count += pending.size;
    return count;
  }

  /** The documents an event changes, each with the source it is ordered by (null: no order to wait for). */
  private *notesOf(event: EventEnvelope): Generator<{ key: string; awaited: Omit<Awaited, 'version'> } | null> {
    for (const documents of this.byType.get(event.type) ?? []) {
      for (const documentId of documents.projection.documentIds(event)) {
        const source = documents.projection.sourceOf ? documents.projection.sourceOf(event, documentId) : sourceOfStream(event.streamId);
        yield source === null ? null : { key: `${this.options.documents.indexOf(documents)}|${documentId}|${source}`, awaited: { documents, documentId, source } };
      }
    }
  }

  private async loadWhenApplied(appId: string): Promise<T> {
    await this.untilApplied(appId);
    this.counters.loads += 1;
    return this.options.load(appId);
  }

  /** Polls the documents the watch announced versions for, by `_id`, until the read model shows them. */
  private async untilApplied(appId: string): Promise<void> {
    const deadline = this.now() + this.options.appliedTimeoutMs;
    for (let attempt = 1; ; attempt++) {
      const pending = this.awaited.get(appId);
      if (!pending || pending.size === 0) return;
      const waiting = [...pending.entries()];
      const missing: Array<[string, Awaited]> = [];
      for (const documents of new Set(waiting.map(([, a]) => a.documents))) {
        const mine = waiting.filter(([, a]) => a.documents === documents);
        const positions = await documents.positions([...new Set(mine.map(([, a]) => a.documentId))]);
        for (const item of mine) if ((positions.get(item[1].documentId)?.[item[1].source] ?? 0) < item[1].version) missing.push(item);
      }
      // Applied: no longer awaited, unless the watch announced a newer version meanwhile.
      const stillMissing = new Set(missing.map(([key]) => key));
      for (const [key, item] of waiting) if (!stillMissing.has(key) && pending.get(key) === item) pending.delete(key);
      if (pending.size === 0) this.awaited.delete(appId);
      if (missing.length === 0) return;
      if (this.now() >= deadline) {
        // Given up on for good: an event the read model never applies must not slow every later load.
        for (const [key, item] of missing) if (pending.get(key) === item) pending.delete(key);
        if (pending.size === 0) this.awaited.delete(appId);
        this.counters.appliedTimeouts += 1;
        this.options.onAppliedTimeout?.(appId, missing.map(([, { documentId, source, version }]) => ({ documentId, source, version })));
        return;
      }
      await this.sleep(backoffDelay(attempt, POLL_BACKOFF));
    }
  }
}
