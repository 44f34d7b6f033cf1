import type { Consumer, ConsumerRunConfig } from 'kafkajs';

/** Where one partition of a topic starts (an offset as kafkajs gives it, or a number). */
export interface PartitionStart<Offset extends string | number = string | number> {
  topic: string;
  partition: number;
  offset: Offset;
}

export interface RunFromOffsetsOptions<Start extends PartitionStart> {
  topics: readonly string[];
  /** Where each partition starts, asked at each launch (a relaunch resumes where the last one left off). */
  starts(): Promise<Start[]>;
  /** Called with the starts once they are known, before any batch. */
  onStart?(starts: readonly Start[]): void;
  run: ConsumerRunConfig;
  /** How a crash is logged (every crash, whether it ends the launch or the running consumer). */
  logCrash(error: unknown): void;
  /** The supervisor's report: the running consumer is dead and a new launch must replace it. */
  crashed(error: unknown): void;
}

/**
 * Runs a lone-member consumer that commits nothing from the offsets it seeks (an event watch, a
 * broadcast consumer). Such a consumer must never be restarted by kafkajs itself: its own restart
 * joins the group again at the log's end (nothing was committed), past records this process has not
 * seen — a missed cache invalidation or realtime frame. So the consumer is built with
 * `restartOnFailure` answering false (`loneMemberConsumerConfig`), and every crash goes to the
 * supervisor, whose next launch seeks to where this one left off.
 *
 * A crash while launching (the first join failed under load: kafkajs has dropped the group, and a
 * seek would throw "Consumer group was not initialized") fails the launch instead of being reported,
 * so the supervisor tries again once, not twice.
 */
export async function runFromOffsets<Start extends PartitionStart>(consumer: Consumer, options: RunFromOffsetsOptions<Start>): Promise<{ stop(): Promise<void> }> {
  let launched = false;
  let crashWhileLaunching: { error: unknown } | null = null;
  consumer.on(consumer.events.CRASH, (event) => {
    options.logCrash(event.payload.error);
    if (launched) options.crashed(event.payload.error);
    else crashWhileLaunching ??= { error: event.payload.error };
  });
  try {
    const starts = await options.starts();
    options.onStart?.(starts);
    await consumer.connect();
    await consumer.subscribe({ topics: [...options.topics], fromBeginning: false });
    await consumer.run(options.run);
    const crash = crashWhileLaunching as { error: unknown } | null;
    if (crash) throw crash.error;
    for (const { topic, partition, offset } of starts) consumer.seek({ topic, partition, offset: String(offset) });
    launched = true;
  } catch (error) {
    await consumer.disconnect().catch(() => undefined);
    throw error;
  }
  return { stop: () => consumer.disconnect() };
}
