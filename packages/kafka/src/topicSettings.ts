import { parseEnvironment } from '@chat/contracts';
import type { Admin, ConfigEntries, ConfigResourceTypes, ConfigSource } from 'kafkajs';
import { z } from 'zod';

// Kafka's protocol numbers for a topic resource and a setting of the topic's own. kafkajs' enums for
// them are not named exports Node's ESM loader can see in its CommonJS module.
const TOPIC_RESOURCE = 2 as ConfigResourceTypes;
const TOPIC_OWN_SETTING = 1 as ConfigSource;

/**
 * How the topics a process creates are laid out and kept (ADR 0051). Every topic holds events keyed
 * by stream, and new consumer groups and `chatctl rebuild` read them from offset 0, so a topic that
 * drops old records makes every later rebuild silently incomplete.
 */
export interface TopicSettings {
  /** The most replicas that share one topic's consumption (KAFKA_PARTITIONS). */
  partitions: number;
  /** 1 on one broker (development, tests); a production cluster of three wants 3 (KAFKA_REPLICATION_FACTOR). */
  replicationFactor: number;
  /** The topic's `retention.ms`: -1 keeps every record for good (KAFKA_TOPIC_RETENTION_MS). */
  retentionMs: number;
}

/** Kept for good: the broker's default (7 days) would lose the history a rebuild replays. */
export const RETAIN_FOREVER = -1;

export const DEFAULT_TOPIC_SETTINGS: Readonly<TopicSettings> = Object.freeze({ partitions: 3, replicationFactor: 1, retentionMs: RETAIN_FOREVER });

const schema = z.object({
  KAFKA_PARTITIONS: z.coerce.number().int().min(1).max(1_000).default(DEFAULT_TOPIC_SETTINGS.partitions),
  KAFKA_REPLICATION_FACTOR: z.coerce.number().int().min(1).max(10).default(DEFAULT_TOPIC_SETTINGS.replicationFactor),
  // 0 or another negative number is not a retention Kafka knows; -1 or a number of milliseconds.
  KAFKA_TOPIC_RETENTION_MS: z.coerce
    .number()
    .int()
    .refine((value) => value === RETAIN_FOREVER || value > 0, 'must be -1 (keep for good) or a positive number of milliseconds')
    .default(DEFAULT_TOPIC_SETTINGS.retentionMs),
});

/** The environment variables `loadTopicSettings` reads (for manifests and documentation). */
export const TOPIC_SETTINGS_VARIABLES = Object.keys(schema.shape);

/** Reads the topic settings once, at start; a value out of range stops the process with its name. An empty value is unset (compose passes them so). */
export function loadTopicSettings(env: NodeJS.ProcessEnv): Readonly<TopicSettings> {
  const e = parseEnvironment('kafka topics', schema, Object.fromEntries(TOPIC_SETTINGS_VARIABLES.map((name) => [name, env[name] === '' ? undefined : env[name]])));
  return Object.freeze({ partitions: e.KAFKA_PARTITIONS, replicationFactor: e.KAFKA_REPLICATION_FACTOR, retentionMs: e.KAFKA_TOPIC_RETENTION_MS });
}

/** The topic-level configuration a created topic gets, and an existing one is brought to. */
export function topicConfigEntries(settings: Pick<TopicSettings, 'retentionMs'>): Array<{ name: string; value: string }> {
  return [{ name: 'retention.ms', value: String(settings.retentionMs) }];
}

/**
 * Brings existing topics to `topicConfigEntries(settings)`, and returns the topics it changed. A
 * topic created before this setting existed (or by hand) keeps the broker's 7 days otherwise.
 *
 * Kafka's AlterConfigs (the request kafkajs sends) replaces all of a topic's own settings, so the
 * settings an operator gave the topic are sent along unchanged. A sensitive one cannot be read back,
 * and would be lost: then the topic is left alone and this throws, naming it.
 */
export async function alignTopicConfigs(admin: Admin, topics: readonly string[], settings: Pick<TopicSettings, 'retentionMs'>): Promise<string[]> {
  const wanted = topicConfigEntries(settings);
  const changes = [];
  for (const [topic, entries] of await readTopicConfigs(admin, topics)) {
    const current = new Map(entries.map((entry) => [entry.configName, entry]));
    const differs = wanted.filter(({ name, value }) => current.get(name)?.configValue !== value);
    if (differs.length === 0) continue;
    const own = entries.filter((entry) => entry.configSource === TOPIC_OWN_SETTING);
    const unreadable = own.filter((entry) => entry.isSensitive || entry.configValue === null);
    if (unreadable.length > 0) {
      throw new Error(
        `kafka topics: ${topic} needs ${differs.map((d) => `${d.name}=${d.value}`).join(', ')}, but its sensitive setting ` +
          `${unreadable.map((e) => e.configName).join(', ')} would be lost by changing it here; set it with kafka-configs.sh`,
      );
    }
    const kept = own.filter((entry) => !wanted.some((w) => w.name === entry.configName)).map((entry) => ({ name: entry.configName, value: entry.configValue }));
    changes.push({ type: TOPIC_RESOURCE, name: topic, configEntries: [...kept, ...wanted] });
  }
  if (changes.length > 0) await admin.alterConfigs({ validateOnly: false, resources: changes });
  return changes.map((change) => change.name);
}

/** Each topic's effective settings as the broker reports them (its own, the broker's and the defaults). */
export async function readTopicConfigs(admin: Admin, topics: readonly string[]): Promise<Map<string, ConfigEntries[]>> {
  const { resources } = await admin.describeConfigs({ includeSynonyms: false, resources: topics.map((name) => ({ type: TOPIC_RESOURCE, name })) });
  return new Map(resources.map((resource) => [resource.resourceName, resource.configEntries]));
}
