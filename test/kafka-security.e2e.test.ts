import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { probeKafka, unusedPort } from '@chat/devstack';
import { createKafka, ensureTopics, loadKafkaSecurity } from '@chat/kafka';
import type { KafkaSecurity } from '@chat/kafka';
import { MongoClient } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/**
 * The project's Kafka (the devstack's jars and infra/kafka/server.properties) given one SASL_SSL
 * listener: TLS with a certificate made for the run, and PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 users
 * (JAAS for PLAIN, SCRAM credentials written at format time). The platform's own client path
 * (`loadKafkaSecurity` from an environment → `createKafka` → topics, produce, consume) must work with
 * each mechanism and be refused with a wrong password or an untrusted certificate; a service process
 * given the same environment must become ready on it (the listener serves nothing else).
 */

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
const libs = join(root, '.infra', 'kafka', 'libs', '*');
const logger = pino({ level: 'silent' });
const USER = 'chat';
const PASSWORD = 'chat-secret';

let dir: string;
let broker: ChildProcess | undefined;
let brokers: string;
let caFile: string;

/** The clients' environment for one mechanism, as an operator would set it. */
function envFor(mechanism: string, password = PASSWORD, ca: string | undefined = caFile): NodeJS.ProcessEnv {
  return {
    KAFKA_SSL: 'true',
    ...(ca ? { KAFKA_SSL_CA_FILE: ca } : {}),
    KAFKA_SASL_MECHANISM: mechanism,
    KAFKA_SASL_USERNAME: USER,
    KAFKA_SASL_PASSWORD: password,
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kafka-sasl-ssl-'));
  const [port, controllerPort] = [await unusedPort(), await unusedPort()];
  brokers = `127.0.0.1:${port}`;
  // A certificate for 127.0.0.1 (the name kafkajs verifies), its unencrypted PKCS#8 key beside it.
  const [certFile, keyFile, keystore] = [join(dir, 'cert.pem'), join(dir, 'key.pem'), join(dir, 'keystore.pem')];
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile]);
  await writeFile(keystore, `${await readFile(keyFile, 'utf8')}${await readFile(certFile, 'utf8')}`);
  caFile = certFile;

  const jaas = (module: string, options = '') => `org.apache.kafka.common.security.${module} required${options};`;
  const overrides: Record<string, string> = {
    listeners: `SASL_SSL://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    'advertised.listeners': `SASL_SSL://127.0.0.1:${port}`,
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL',
    'inter.broker.listener.name': 'SASL_SSL',
    'controller.quorum.voters': `1@127.0.0.1:${controllerPort}`,
    'log.dirs': join(dir, 'data'),
    'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
    'sasl.mechanism.inter.broker.protocol': 'PLAIN',
    'listener.name.sasl_ssl.plain.sasl.jaas.config': jaas(
      'plain.PlainLoginModule',
      ` username="broker" password="broker-secret" user_broker="broker-secret" user_${USER}="${PASSWORD}"`,
    ),
    'listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config': jaas('scram.ScramLoginModule'),
    'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config': jaas('scram.ScramLoginModule'),
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': keystore,
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.location': certFile,
  };
  // Later keys win in a properties file: the project's template, then this run's listener.
  const template = await readFile(join(root, 'infra', 'kafka', 'server.properties'), 'utf8');
  const props = join(dir, 'server.properties');
  await writeFile(props, `${template}\n${Object.entries(overrides).map(([key, value]) => `${key}=${value}`).join('\n')}\n`);
  const tool = ['-cp', libs, 'kafka.tools.StorageTool'];
  const clusterId = (await run('java', [...tool, 'random-uuid'])).stdout.trim().split('\n').pop() ?? '';
  await run('java', [...tool, 'format', '-t', clusterId, '-c', props, '--ignore-formatted',
    '--add-scram', `SCRAM-SHA-256=[name=${USER},password=${PASSWORD}]`,
    '--add-scram', `SCRAM-SHA-512=[name=${USER},password=${PASSWORD}]`]);
  const log = join(dir, 'broker.log');
  broker = spawn('java', ['-Xms128m', '-Xmx384m', '-XX:TieredStopAtLevel=1', '-Djava.awt.headless=true',
    `-Dlog4j.configuration=file:${join(root, 'infra', 'kafka', 'log4j.properties')}`, '-cp', libs, 'kafka.Kafka', props], {
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  // Ready when the devstack's own probe, given the clients' settings, lists topics.
  const security = loadKafkaSecurity(envFor('PLAIN'));
  const deadline = Date.now() + 90_000;
  for (let lastError: unknown; ; ) {
    if (broker.exitCode !== null) throw new Error(`the SASL_SSL broker exited (${broker.exitCode}); see ${log}`);
    try {
      await probeKafka(brokers, security);
      break;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`the SASL_SSL broker did not answer: ${String(lastError)}`);
    await sleep(500);
  }
}, 120_000);

afterAll(async () => {
  if (broker && broker.exitCode === null) {
    const exited = new Promise((done) => broker!.once('exit', done));
    broker.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000).then(() => broker!.kill('SIGKILL'))]);
  }
  if (dir) await rm(dir, { recursive: true, force: true });
}, 30_000);

/** Topic, produce, consume with the platform's client: what every service does with its topics. */
async function roundTrip(security: KafkaSecurity, mechanism: string): Promise<string> {
  const kafka = createKafka(`sasl-${mechanism}`, [brokers], logger, security);
  const topic = `secured.${mechanism.toLowerCase()}`;
  await ensureTopics(kafka, [topic], 1, 5);
  const producer = kafka.producer();
  const consumer = kafka.consumer({ groupId: `secured-${mechanism.toLowerCase()}` });
  await producer.connect();
  await consumer.connect();
  try {
    await producer.send({ topic, messages: [{ value: `over ${mechanism}` }] });
    await consumer.subscribe({ topic, fromBeginning: true });
    const received = new Promise<string>((done) => {
      void consumer.run({ eachMessage: async ({ message }) => done(message.value?.toString() ?? '') });
    });
    return await Promise.race([received, sleep(30_000).then(() => 'nothing within 30 s')]);
  } finally {
    await consumer.disconnect();
    await producer.disconnect();
  }
}

async function refusal(security: KafkaSecurity): Promise<string> {
  const admin = createKafka('sasl-refused', [brokers], logger, security).admin();
  try {
    await admin.connect();
    return 'connected';
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

describe('Kafka over SASL_SSL', () => {
  it.each(['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'])('carries events with SASL %s over TLS', async (mechanism) => {
    expect(await roundTrip(loadKafkaSecurity(envFor(mechanism)), mechanism)).toBe(`over ${mechanism}`);
  }, 60_000);

  it.each(['PLAIN', 'SCRAM-SHA-512'])('refuses SASL %s with a wrong password', async (mechanism) => {
    expect(await refusal(loadKafkaSecurity(envFor(mechanism, 'wrong-password')))).toMatch(/SASL|[Aa]uthentication/);
  }, 60_000);

  it('refuses a broker whose certificate the client does not trust', async () => {
    expect(await refusal(loadKafkaSecurity(envFor('PLAIN', PASSWORD, '')))).toMatch(/certificate/i);
  }, 60_000);

  it('serves a service process started with the settings: the users service becomes ready on it', async () => {
    const port = await unusedPort();
    const database = `chat_users_sasl_${process.pid}`;
    const service = spawn(process.execPath, [join(root, 'services', 'users', 'dist', 'main.js')], {
      env: {
        ...process.env,
        ...envFor('SCRAM-SHA-512'),
        PORT: String(port),
        MONGO_URL: inject('mongoUrl'),
        MONGO_DB: database,
        KAFKA_BROKERS: brokers,
        KAFKA_PARTITIONS: '1',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    service.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      // /readyz: its store, its producer and its consumer group, the last two over SASL_SSL.
      let ready = 0;
      for (const deadline = Date.now() + 60_000; Date.now() < deadline && service.exitCode === null; await sleep(250)) {
        ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status, () => 0);
        if (ready === 200) break;
      }
      expect(ready, stderr).toBe(200);
    } finally {
      const exited = new Promise((done) => service.once('exit', done));
      service.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000).then(() => service.kill('SIGKILL'))]);
      const mongo = await MongoClient.connect(inject('mongoUrl'));
      await mongo.db(database).dropDatabase().finally(() => mongo.close());
    }
  }, 90_000);
});
