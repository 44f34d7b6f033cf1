export { createKafka, ensureTopics } from './client.js';
export { KafkaEventPublisher } from './producer.js';
export { EventConsumer, consumerGroupFor } from './consumer.js';
export type { EventConsumerOptions, EventHandler } from './consumer.js';
