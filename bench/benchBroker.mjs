// A Kafka broker of a bench's own (a fresh data directory, single-node KRaft, the jars
// infra/scripts/prepare.sh builds), for the benches that measure the broker or a client against it
// alone: kafka-broker-cost.mjs and bystander-cost.mjs.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { BROKER_HEAP_OPTS, BROKER_JVM_PERFORMANCE_OPTS } from '@chat/devstack';

const run = promisify(execFile);

/** The JVM flags the devstack starts the broker with (its defaults, infra/devstack/src/brokerJvm.ts). */
export const MAIN_JVM = [...BROKER_HEAP_OPTS, ...BROKER_JVM_PERFORMANCE_OPTS.filter((flag) => flag !== '-Djava.awt.headless=true')];

/** The JDKs a variant may name (ADR 0133): the machine's default `java` (OpenJDK 17) and Temurin 25. */
export const JAVA = { 17: 'java', 25: '/usr/lib/jvm/temurin-25-jdk-amd64/bin/java' };

/**
 * The broker's JDK and JVM flags as bench variants (ADR 0133): `j17` is the devstack's broker; the `j25*` run
 * Temurin 25 with the same flags, with compact object headers, with C2 (tiered) or with SerialGC.
 */
export const JDK_VARIANTS = {
  j17: { java: JAVA[17], jvm: MAIN_JVM },
  'j17-tiered': { java: JAVA[17], jvm: MAIN_JVM.filter((flag) => flag !== '-XX:TieredStopAtLevel=1') },
  j25: { java: JAVA[25], jvm: MAIN_JVM },
  'j25-coh': { java: JAVA[25], jvm: [...MAIN_JVM, '-XX:+UseCompactObjectHeaders'] },
  'j25-tiered': { java: JAVA[25], jvm: MAIN_JVM.filter((flag) => flag !== '-XX:TieredStopAtLevel=1') },
  'j25-serial': { java: JAVA[25], jvm: MAIN_JVM.map((flag) => (/^-XX:\+Use\w+GC$/.test(flag) ? '-XX:+UseSerialGC' : flag)) },
};

/**
 * Starts a broker on `port` (its controller on `controllerPort`) from `root`'s infra/kafka/server.properties
 * with `props` over it, in `dir` (emptied first); resolves once `admin` (a kafkajs admin of that broker)
 * lists its topics. `libs`: the jars (default `root`/.infra/kafka/libs); `java`: the JVM's launcher (default `java`).
 */
export async function startBroker({ root, port, controllerPort, dir, admin, jvm = MAIN_JVM, props = {}, libs = join(root, '.infra', 'kafka', 'libs'), java = 'java' }) {
  if (!existsSync(libs)) throw new Error(`no broker jars at ${libs}: run bash infra/scripts/prepare.sh kafka`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'data'), { recursive: true });
  const template = await readFile(join(root, 'infra', 'kafka', 'server.properties'), 'utf8');
  const all = {
    listeners: `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${port}`,
    'controller.quorum.voters': `1@127.0.0.1:${controllerPort}`,
    'log.dirs': join(dir, 'data'),
    ...props,
  };
  const kept = template.split('\n').filter((line) => !Object.keys(all).some((key) => line.startsWith(`${key}=`)));
  const propsFile = join(dir, 'server.properties');
  await writeFile(propsFile, [...kept, ...Object.entries(all).map(([k, v]) => `${k}=${v}`)].join('\n'));
  const base = [`-Dlog4j.configuration=file:${join(root, 'infra', 'kafka', 'log4j.properties')}`, '-cp', join(libs, '*')];
  const { stdout } = await run(java, [...base, 'kafka.tools.StorageTool', 'random-uuid']);
  await run(java, [...base, 'kafka.tools.StorageTool', 'format', '-t', stdout.trim().split('\n').pop(), '-c', propsFile]);
  const spawnedAt = performance.now();
  const child = spawn(java, [...jvm, '-Djava.awt.headless=true', ...base, 'kafka.Kafka', propsFile], { stdio: 'ignore' });
  for (let i = 0; ; i++) {
    try {
      await admin.connect();
      await admin.listTopics();
      break;
    } catch (error) {
      if (i > 100 || child.exitCode !== null) {
        child.kill('SIGKILL');
        throw new Error(`broker did not start: ${error}`);
      }
      await sleep(300);
    }
  }
  await admin.disconnect();
  /** Milliseconds from the broker's spawn until it listed its topics. */
  child.startMs = performance.now() - spawnedAt;
  return child;
}

export async function stopBroker(child) {
  child.kill('SIGTERM');
  const deadline = Date.now() + 15_000;
  while (child.exitCode === null && child.signalCode === null && Date.now() < deadline) await sleep(100);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
