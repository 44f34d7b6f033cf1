import type { EventEnvelope } from '@chat/contracts';
import { counter } from '@chat/http';
import { DocumentMemory, MongoDocumentStore, ProjectedReadModels, ensureIndexes, findPage, readWithPatience, showsPositions, sourceOfStream, stripStoredFields } from '@chat/mongo';
import type { DocumentMemoryOptions, KeysetOrder, PagePosition, Stored, StoredRecord } from '@chat/mongo';
import type { Collection, Db, Filter } from 'mongodb';
import type { Logger } from 'pino';
import { ModerationPolicy } from '../../domain/moderation/moderationPolicy.js';
import type { PolicyObserver } from '../../domain/moderation/moderationPolicy.js';
import type { ModerationSettings } from '../../domain/moderation/moderationSettings.js';
import { moderationSettingsStream } from '../../domain/moderation/moderationSettings.js';
import { moderationSettingsId, moderationSettingsProjection, settingsOf } from '../../projections/moderation/moderationSettings.js';
import type { ModerationSettingsDoc } from '../../projections/moderation/moderationSettings.js';
import { reviewDocId, reviewQueueProjection } from '../../projections/moderation/reviewQueue.js';
import type { ReviewDoc } from '../../projections/moderation/reviewQueue.js';

/** An app's settings with its text rules compiled. */
export interface AppModeration {
  settings: ModerationSettings;
  policy: ModerationPolicy;
}

export type ReviewList = { queue: 'flagged' | 'blocked'; status: 'pending' } | { reviewed: true };

/** How long a read asked for a settings version (a consistency token) waits for the store to show it. */
const SETTINGS_WAIT_MS = 2_000;

/** Sends whose pattern budget ran out (ADR 0037): the rules not read count as not matched. */
const budgetExhausted = counter('moderation_pattern_budget_exhausted_total', 'Judged texts whose moderation pattern budget ran out before every pattern rule was read.', []);
/** Stored pattern terms the engine refuses (saved before ADR 0037's checks): never matched. */
const termsRefused = counter('moderation_pattern_terms_refused_total', 'Stored moderation pattern terms the pattern engine refused when an app policy was compiled.', []);

/** The app's settings document and the position a client's consistency token says it must show, if any. */
function settingsRead(appId: string, awaited: ReadonlyMap<string, number> | undefined): { id: string; atLeast: Record<string, number> | undefined } {
  const stream = moderationSettingsStream(appId);
  const version = awaited?.get(stream);
  return { id: moderationSettingsId(appId), atLeast: version !== undefined ? { [sourceOfStream(stream)]: version } : undefined };
}

/** Review lists go newest first; message ids are unique in an app. */
const NEWEST_FIRST: KeysetOrder = [['seq', -1]];

/**
 * The moderation read models of the messages service: each app's settings (rules, keyword lists,
 * reasons, agents) and the review queue. Every send reads its app's settings, so they are kept in
 * memory on every replica and forgotten the moment a settings event reaches this replica's watch
 * (ADR 0025): a rule change acts at once on the replica that made it, on the others within the
 * watch's lag (well under a second), and at once for a client carrying the change's consistency
 * token (ADR 0035).
 */
export class ModerationReadModels extends ProjectedReadModels {
  private readonly reviews: Collection<Stored<ReviewDoc>>;
  private readonly settingsStore: MongoDocumentStore;
  private readonly settingsMemory: DocumentMemory;
  /** The policy compiled from each remembered settings document (a new document compiles anew). */
  private readonly compiled = new WeakMap<StoredRecord, AppModeration>();
  private readonly empty: AppModeration;

  /**
   * `watchCurrentAsOf`: how current this replica's watch is (the pipeline's), so an app's settings are
   * read again only when a settings event changes them, not every `maxAgeMs` — when every send in
   * flight missed at once and each read the whole document (issue 23: 0.01 reads a message, 23 ms each).
   */
  constructor(
    db: Db,
    private readonly logger?: Logger,
    memory: Pick<DocumentMemoryOptions, 'watchCurrentAsOf'> = {},
  ) {
    super(db);
    this.projected('moderation_settings', moderationSettingsProjection);
    this.reviews = this.projected('review_queue', reviewQueueProjection);
    this.settingsStore = new MongoDocumentStore(this.db, 'moderation_settings');
    this.settingsMemory = new DocumentMemory(this.settingsStore, [moderationSettingsProjection], memory);
    const settings = settingsOf(null);
    this.empty = { settings, policy: new ModerationPolicy(settings) };
  }

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.db, 'review_queue', [{ keys: { appId: 1, queue: 1, status: 1, seq: -1 }, options: { name: 'queue_order' } }]);
  }

  override async apply(events: readonly EventEnvelope[]): Promise<void> {
    await super.apply(events);
    this.settingsMemory.observe(events);
  }

  /** The event types that change an app's settings: the only ones the watch needs to decode for `observe`. */
  static readonly settingsEventTypes: ReadonlySet<string> = new Set(moderationSettingsProjection.eventTypes);

  /** Events of this service's topic as this replica's watch sees them. */
  observe(events: readonly EventEnvelope[]): void {
    this.settingsMemory.observe(events);
  }

  /**
   * The app's settings and compiled rules, from memory while current. `awaited` are the positions a
   * client's consistency token names: a settings change it made on another replica, which this
   * replica's watch may not have seen yet, is read from the store (where the writing replica put it
   * before answering), waiting at most SETTINGS_WAIT_MS for it.
   */
  async moderationOf(appId: string, awaited?: ReadonlyMap<string, number>): Promise<AppModeration> {
    const { id, atLeast } = settingsRead(appId, awaited);
    const read = async () => (await this.settingsMemory.getMany([id], atLeast)).get(id) ?? null;
    const record = atLeast ? await readWithPatience(read, { timeoutMs: SETTINGS_WAIT_MS, until: (r) => showsPositions(r, atLeast) }) : await read();
    if (!record) return this.empty;
    let known = this.compiled.get(record);
    if (!known) {
      const settings = settingsOf(stripStoredFields(record as unknown as Stored<ModerationSettingsDoc>));
      known = { settings, policy: new ModerationPolicy(settings, { observer: this.observerFor(appId) }) };
      this.compiled.set(record, known);
    }
    return known;
  }

  /**
   * The app's settings as stored now, for the settings API's own reads (`GET` of tools, agents, rule
   * revisions). The writing replica stores a change before it answers, so a client reads its own write
   * on any replica without carrying the consistency token, which the send path's memory would need:
   * that memory is current only as far as this replica's watch has come. These reads are rare and
   * compile no rules. `awaited` still waits for the positions a token names (a write of another client).
   */
  async storedSettingsOf(appId: string, awaited?: ReadonlyMap<string, number>): Promise<ModerationSettings> {
    const { id, atLeast } = settingsRead(appId, awaited);
    const read = async () => (await this.settingsStore.findMany([id])).get(id) ?? null;
    const record = await readWithPatience(read, { timeoutMs: SETTINGS_WAIT_MS, until: (r) => showsPositions(r, atLeast) });
    return record ? settingsOf(stripStoredFields(record as unknown as Stored<ModerationSettingsDoc>)) : this.empty.settings;
  }

  /** Logs and counts what a policy could not use or judge in time, so the tenant's operator can fix the pattern. */
  private observerFor(appId: string): PolicyObserver {
    return {
      termRefused: (ruleId, term, problem) => {
        termsRefused.inc();
        this.logger?.warn({ appId, ruleId, term, problem }, 'moderation pattern term refused by the pattern engine; it never matches');
      },
      budgetExhausted: (ruleIds, elapsedMs) => {
        budgetExhausted.inc();
        this.logger?.warn({ appId, ruleIds, elapsedMs: Math.round(elapsedMs) }, 'moderation pattern budget ran out; these rules were not judged for this text (sent as not matched)');
      },
    };
  }

  async findReview(appId: string, id: string): Promise<ReviewDoc | null> {
    const doc = await this.reviews.findOne({ _id: reviewDocId(appId, id) } as Filter<Stored<ReviewDoc>>);
    return doc ? stripStoredFields(doc) : null;
  }

  async pageReviews(appId: string, list: ReviewList, position: PagePosition, perPage: number): Promise<{ total: number; items: ReviewDoc[]; more: boolean }> {
    const filter = 'reviewed' in list ? { appId, status: { $ne: 'pending' } } : { appId, queue: list.queue, status: list.status };
    const { total, items, more } = await findPage(this.reviews, filter as Filter<Stored<ReviewDoc>>, NEWEST_FIRST, position, perPage);
    return { total, items: items.map((doc) => stripStoredFields(doc as Stored<ReviewDoc>)), more };
  }
}
