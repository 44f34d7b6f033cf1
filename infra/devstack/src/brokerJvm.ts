/**
 * The JVM flags the devstack starts the Kafka broker with, in the two groups Kafka's own launcher
 * (`kafka-run-class.sh`, and so the apache/kafka image of infra/compose) reads from the environment:
 * `KAFKA_HEAP_OPTS` (the heap) and `KAFKA_JVM_PERFORMANCE_OPTS` (collector, compiler and the rest).
 * Either, when set and not blank, replaces the devstack's group as it replaces the launcher's; that is how a
 * bench alternates the broker's collector (bench/gc-pauses-ab.mjs, ADR 0149).
 */
export const BROKER_HEAP_OPTS: readonly string[] = ['-Xms256m', '-Xmx512m'];

export const BROKER_JVM_PERFORMANCE_OPTS: readonly string[] = [
  // ZGC, not G1: its pauses stay under a few ms where G1's young pauses and remarks took 15–75 ms every few
  // seconds and stopped every produce and fetch at once, for ≈ 5 % more of the broker's CPU per message and
  // none measurable of the stack's (ADR 0149). JDK 17's ZGC is the single-generation one; the heap flags above bound it as they bounded G1.
  '-XX:+UseZGC',
  // C1 only: measured ~15% faster (1.9 s vs 2.3 s) to first metadata on 2 cores; throughput is irrelevant here.
  '-XX:TieredStopAtLevel=1',
  // No perf data: the JVM's sampler woke every 50 ms for counters only jstat reads (ADR 0122).
  '-XX:-UsePerfData',
  '-Djava.awt.headless=true',
];

/** The broker's JVM flags: each group from the environment when given there, else the devstack's. */
export function brokerJvmFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  const group = (name: string, fallback: readonly string[]): string[] => {
    const given = env[name]?.trim();
    return given ? given.split(/\s+/) : [...fallback];
  };
  return [...group('KAFKA_HEAP_OPTS', BROKER_HEAP_OPTS), ...group('KAFKA_JVM_PERFORMANCE_OPTS', BROKER_JVM_PERFORMANCE_OPTS)];
}
