// node packages/kafka/dist/redrive-cli.js <consumer group>: sends the group's dead letters back to their
// topics (see redrive.ts). KAFKA_BROKERS as for the services (default 127.0.0.1:9092).
import { pino } from 'pino';
import { createKafka } from './client.js';
import { redriveDeadLetters } from './redrive.js';

const groupId = process.argv[2];
if (!groupId) {
  process.stderr.write('usage: redrive-cli <consumer group, e.g. messages.projections.chat_messages>\n');
  process.exit(2);
}
const logger = pino({ name: 'redrive' });
const brokers = (process.env['KAFKA_BROKERS'] ?? '127.0.0.1:9092').split(',').map((b) => b.trim()).filter(Boolean);
const count = await redriveDeadLetters(createKafka('redrive', brokers, logger), groupId, logger);
process.stdout.write(`${count} dead letter(s) of ${groupId} sent back to their topics\n`);
