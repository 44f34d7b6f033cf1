export { createKafka, ensureTopics } from './client.js';
export { KafkaEventPublisher } from './producer.js';
export { EventConsumer, consumerGroupFor } from './consumer.js';
export type { EventConsumerOptions } from './consumer.js';
export { BatchProcessor, decodeMessage, outageBackoffMs } from './batchProcessor.js';
export type { BatchHandler, BatchProcessorOptions, ConsumerCounters, PartitionBatch } from './batchProcessor.js';
export { EventWatch } from './eventWatch.js';
export type { EventWatchOptions } from './eventWatch.js';
