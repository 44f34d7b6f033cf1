import type { Admin, Kafka } from 'kafkajs';

export interface PartitionLag {
  groupId: string;
  topic: string;
  partition: number;
  /** The partition's next offset (high-water mark). */
  end: number;
  /** The group's committed offset; -1 when it has committed nothing there yet. */
  committed: number;
  /** Messages the group has still to apply: end − committed (end − the partition's start when nothing is committed). */
  lag: number;
}

/** A partition's next offset: every message before it is on the broker. */
export interface Watermark {
  topic: string;
  partition: number;
  offset: number;
}

/**
 * Reads consumer lag from the broker: the committed offsets of a group against each partition's end.
 * Shared by `/metrics` (per process) and the operator CLI. One admin connection, opened on first use;
 * a broker that cannot be reached makes `measure` reject, and the next call tries again.
 */
export class LagReader {
  private admin: Admin | null = null;
  private connecting: Promise<Admin> | null = null;
  /**
   * The groups `measureGroups` found committed up to every watermark, by group, and the watermarks they
   * were read at (ADR 0058, 0134): their answer stands until something is produced.
   */
  private settled: { ends: string; lags: Map<string, readonly PartitionLag[]> } | null = null;

  constructor(private readonly kafka: Kafka) {}

  async measure(groupId: string, topics: readonly string[]): Promise<PartitionLag[]> {
    const admin = await this.connected();
    try {
      const [committed, ends] = await Promise.all([
        admin.fetchOffsets({ groupId, topics: [...topics] }),
        Promise.all(topics.map(async (topic) => ({ topic, partitions: await admin.fetchTopicOffsets(topic) }))),
      ]);
      const committedAt = new Map<string, number>();
      for (const { topic, partitions } of committed) {
        for (const { partition, offset } of partitions) committedAt.set(`${topic}:${partition}`, Number(offset));
      }
      const lags: PartitionLag[] = [];
      for (const { topic, partitions } of ends) {
        for (const { partition, high, low } of partitions) {
          const end = Number(high);
          const at = committedAt.get(`${topic}:${partition}`) ?? -1;
          lags.push({ groupId, topic, partition, end, committed: at, lag: Math.max(0, end - (at < 0 ? Number(low) : at)) });
        }
      }
      return lags;
    } catch (error) {
      // A broken connection is dropped, so the next measurement reconnects.
      await this.close();
      throw error;
    }
  }

  /** Every consumer group the brokers know, by id. */
  async groupIds(): Promise<string[]> {
    const admin = await this.connected();
    try {
      return (await admin.listGroups()).groups.map((group) => group.groupId);
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /**
   * Several groups' positions on the same topics: the watermarks are read once for all of them, then
   * each group's committed offsets. Where a group committed nothing, `committed` is −1 and `lag` 0: a
   * group that has not started on a partition is not counted as behind there.
   */
  async measureGroups(groupIds: readonly string[], topics: readonly string[]): Promise<PartitionLag[]> {
    const ends = await this.highWatermarks(topics);
    // A group that had applied everything at these watermarks cannot have moved since (a commit never
    // passes the watermark), so its answer stands without a FindCoordinator and an OffsetFetch — the
    // admission gate's reading every second on an idle stack (ADR 0058). Kept per group (ADR 0134): the
    // gate reads every group on a refresh and the consuming ones between, and both are answered by the
    // same reading. A group that committed nothing on a partition (most groups do not consume the
    // topic) counts as settled there: it is reported with lag 0 either way until something is produced.
    const watermarks = JSON.stringify([topics, ends]);
    if (this.settled?.ends !== watermarks) this.settled = { ends: watermarks, lags: new Map() };
    const settled = this.settled.lags;
    const unread = groupIds.filter((groupId) => !settled.has(groupId));
    const read = new Map<string, PartitionLag[]>();
    if (unread.length > 0) {
      const admin = await this.connected();
      try {
        // One OffsetFetch per group (the admin API takes one group), all in flight at once: a reading
        // every second must not take as many round trips in a row as the deployment has groups.
        await Promise.all(
          unread.map(async (groupId) => {
            const committedAt = new Map<string, number>();
            for (const { topic, partitions } of await admin.fetchOffsets({ groupId, topics: [...topics] })) {
              for (const { partition, offset } of partitions) committedAt.set(`${topic}:${partition}`, Number(offset));
            }
            read.set(
              groupId,
              ends.map(({ topic, partition, offset: end }): PartitionLag => {
                const at = committedAt.get(`${topic}:${partition}`) ?? -1;
                return { groupId, topic, partition, end, committed: at, lag: at < 0 ? 0 : Math.max(0, end - at) };
              }),
            );
          }),
        );
      } catch (error) {
        await this.close();
        throw error;
      }
      for (const [groupId, lags] of read) {
        if (lags.every((lag) => lag.committed === lag.end || lag.committed < 0)) settled.set(groupId, lags.map((lag) => ({ ...lag })));
      }
    }
    return groupIds.flatMap((groupId) => (read.get(groupId) ?? settled.get(groupId) ?? []).map((lag) => ({ ...lag })));
  }

  /**
   * Each partition's next offset (high watermark) now, for all the topics in one ListOffsets request
   * (`fetchTopicEnds`, our kafkajs patch, ADR 0072): `fetchTopicOffsets` asked twice per topic (latest
   * and earliest), and a fence round or an admission reading needs only the latest.
   */
  async highWatermarks(topics: readonly string[]): Promise<Watermark[]> {
    if (topics.length === 0) return [];
    const admin = await this.connected();
    try {
      const ends = await admin.fetchTopicEnds([...topics]);
      return ends.flatMap(({ topic, partitions }) => partitions.map(({ partition, offset }) => ({ topic, partition, offset: Number(offset) })));
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    const admin = this.admin;
    this.admin = null;
    this.connecting = null;
    await admin?.disconnect().catch(() => undefined);
  }

  private connected(): Promise<Admin> {
    if (this.admin) return Promise.resolve(this.admin);
    this.connecting ??= (async () => {
      const admin = this.kafka.admin();
      try {
        await admin.connect();
      } catch (error) {
        this.connecting = null;
        throw error;
      }
      this.admin = admin;
      return admin;
    })();
    return this.connecting;
  }
}
