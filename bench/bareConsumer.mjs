// A bare kafkajs consumer as the floors measure one (ADR 0113, 0131): a group of its own reading a topic
// from its start, `eachBatch` with a lane per partition, no offset commits, nothing of our runtime.

/**
 * Connects `consumer`, subscribes it to `topic` from the start and runs `eachBatch` (kafkajs' batch
 * callback), `partitions` batches at once.
 * @param {import('kafkajs').Consumer} consumer
 * @param {string} topic
 * @param {number} partitions
 * @param {(payload: import('kafkajs').EachBatchPayload) => Promise<void>} eachBatch
 */
export async function runBareConsumer(consumer, topic, partitions, eachBatch) {
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ autoCommit: false, partitionsConsumedConcurrently: partitions, eachBatch });
}
