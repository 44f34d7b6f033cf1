import { counter, sampledGauge } from '@chat/http';
import { escapeRegex } from '@chat/mongo';
import type { LagReader, PartitionLag } from '@chat/kafka';
import type { Logger } from 'pino';
import { BacklogPolicy } from './backlogPolicy.js';
import type { BacklogLimits, BacklogVerdict, GroupPosition } from './backlogPolicy.js';

export interface BacklogGateOptions extends BacklogLimits {
  /** The topics this service produces: the backlog that matters is its consumers' on these. */
  topics: readonly string[];
  /** The consumer groups that count: this deployment's own, never a downstream team's. */
  countsGroup(groupId: string): boolean;
  /** How often the positions are read. */
  intervalMs: number;
  lags: Pick<LagReader, 'groupIds' | 'measureGroups'>;
  logger: Logger;
  now?: () => number;
}

/**
 * The group list changes rarely (a deploy): it is read on every tenth tick only, and each of its
 * groups is read that tick; the other ticks read the groups that consumed the topics then.
 */
const GROUP_LIST_EVERY = 10;

const refusals = counter('backlog_refused_requests_total', 'Writes refused because the consumers fell behind the send path (ADR 0054).', []);

/**
 * Reads the consumer groups' positions on the service's topics every interval and keeps the
 * `BacklogPolicy`'s verdict for the request path, which only reads it: nothing is measured per request.
 * A read that fails (the broker away) admits: shedding on a stale figure would refuse every write
 * for a broker fault the store is not having.
 */
export class BacklogGate {
  private readonly policy: BacklogPolicy;
  private verdict: BacklogVerdict = { shedding: false, retryAfterSeconds: 1, worst: null };
  private groups: string[] = [];
  /**
   * The counted groups that had committed on the topics at the last refresh. A group that starts
   * consuming them later is read from the next refresh on, at most `GROUP_LIST_EVERY` readings late —
   * as a new group is; until its first commit it counts for nothing either way.
   */
  private consumers: string[] = [];
  private ticks = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly removeGauge: () => void;

  constructor(private readonly options: BacklogGateOptions) {
    this.policy = new BacklogPolicy(options);
    this.removeGauge = sampledGauge('backlog_worst_drain_seconds', 'The longest any counted consumer group needs to apply its backlog at its recent pace.', [], () =>
      this.verdict.worst ? [{ labels: {}, value: Math.min(this.verdict.worst.drainMs / 1_000, 1e9) }] : [],
    );
  }

  /** When the consumers are behind: how long a refused write should wait; otherwise null. */
  refusal(): { retryAfterSeconds: number; message: string } | null {
    if (!this.verdict.shedding) return null;
    refusals.inc();
    const worst = this.verdict.worst;
    const behind = worst ? ` (${worst.lag} events not yet applied by one of them)` : '';
    return { retryAfterSeconds: this.verdict.retryAfterSeconds, message: `The platform's consumers are behind${behind}; retry the request shortly.` };
  }

  start(): void {
    if (this.options.maxDrainMs <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      this.running ??= this.tick().then(
        () => undefined,
        () => undefined,
      ).finally(() => {
        this.running = null;
      });
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.removeGauge();
    await this.running;
  }

  /** One reading (exposed for tests; the timer calls it). */
  async tick(): Promise<BacklogVerdict> {
    try {
      const refresh = this.ticks % GROUP_LIST_EVERY === 0;
      if (refresh) this.groups = (await this.options.lags.groupIds()).filter((id) => this.options.countsGroup(id));
      this.ticks += 1;
      // Between refreshes only the groups that consume the topics are read (ADR 0087): the others
      // cost the broker a FindCoordinator and an OffsetFetch a second each, and count for nothing.
      const reading = refresh ? this.groups : this.consumers;
      const lags = reading.length > 0 ? await this.options.lags.measureGroups(reading, this.options.topics) : [];
      const positions = positionsOf(lags);
      if (refresh) this.consumers = positions.map((p) => p.groupId);
      const before = this.verdict.shedding;
      this.verdict = this.policy.observe(positions, (this.options.now ?? Date.now)());
      if (this.verdict.shedding !== before) {
        this.options.logger.warn({ worst: this.verdict.worst }, this.verdict.shedding ? 'consumers behind: refusing writes' : 'consumers caught up: taking writes again');
      }
    } catch (error) {
      this.ticks = 0; // read the group list again next time
      if (this.verdict.shedding) this.options.logger.warn({ err: error }, 'consumer positions unreadable: taking writes again');
      this.verdict = { shedding: false, retryAfterSeconds: 1, worst: null };
    }
    return this.verdict;
  }
}

/** Per group, summed over partitions; a group that committed nothing on the topics is not a consumer of them. */
function positionsOf(lags: readonly PartitionLag[]): GroupPosition[] {
  const byGroup = new Map<string, GroupPosition & { consumes: boolean }>();
  for (const lag of lags) {
    const position = byGroup.get(lag.groupId) ?? { groupId: lag.groupId, lag: 0, applied: 0, consumes: false };
    if (lag.committed >= 0) {
      position.consumes = true;
      position.lag += lag.lag;
      position.applied += lag.committed;
    }
    byGroup.set(lag.groupId, position);
  }
  return [...byGroup.values()].filter((p) => p.consumes).map(({ groupId, lag, applied }) => ({ groupId, lag, applied }));
}

/**
 * This deployment's consumer groups, told from the service's own database name: every group is named
 * `<purpose>.chat_<service><suffix>` (consumerGroupFor), and the deployment's databases share the suffix.
 * A watch's private group (`….watch.<uuid>`) and other teams' groups do not match.
 */
export function deploymentGroups(databaseName: string, serviceName: string): (groupId: string) => boolean {
  const own = `chat_${serviceName}`;
  const suffix = databaseName.startsWith(own) ? databaseName.slice(own.length) : null;
  if (suffix === null) return (groupId) => groupId.endsWith(`.${databaseName}`);
  const pattern = new RegExp(`\\.chat_[a-z]+${escapeRegex(suffix)}$`);
  return (groupId) => pattern.test(groupId) && !groupId.includes('.watch.');
}
