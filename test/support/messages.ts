import { Kafka, logLevel } from 'kafkajs';
import { inject } from 'vitest';
import type { ApiResponse, TestApp } from './api.js';
import { eventually } from './api.js';
import type { ReadBack } from './kafka.js';

/**
 * Produces an event read back from Kafka again, `times` times, with its key (the stream id, as the
 * services' producers key it), headers and partition: exactly what a redelivery or a replay after a
 * restart brings a consumer. Not an invented event: the same id, stream, version and data the service published.
 */
export async function redeliver(topic: string, record: ReadBack, times: number): Promise<void> {
  const kafka = new Kafka({ clientId: 'e2e-redeliver', brokers: inject('kafkaBrokers').split(','), logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  try {
    const message = { key: String(record.value['streamId']), value: JSON.stringify(record.value), headers: record.headers, partition: record.partition };
    await producer.send({ topic, acks: -1, messages: Array.from({ length: times }, () => message) });
  } finally {
    await producer.disconnect();
  }
}

/** A change another service makes through the API; fails the test at once when it is refused. */
export async function done(response: Promise<ApiResponse>): Promise<ApiResponse> {
  const answer = await response;
  if (answer.status !== 200) throw new Error(`expected 200, got ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer;
}

export function sendMessage(app: TestApp, from: string, body: Record<string, unknown>): Promise<ApiResponse> {
  return app.call('POST', '/v3/messages', { onBehalfOf: from, body });
}

export function text(receiver: string, words: string, receiverType: 'user' | 'group' = 'user', extra: Record<string, unknown> = {}) {
  return { receiver, receiverType, category: 'message', type: 'text', data: { text: words }, ...extra };
}

/** Sends until the answer is not 'not yet known' (another service's event still on its way). */
export async function sendWhenAllowed(app: TestApp, from: string, body: Record<string, unknown>): Promise<ApiResponse> {
  return eventually(
    () => sendMessage(app, from, body),
    (r) => r.status === 200,
  );
}

/** The group's messages (as the app), once `check` holds. */
export async function groupMessagesWhen(app: TestApp, guid: string, check: (messages: any[]) => boolean): Promise<any[]> {
  const response = await eventually(
    () => app.call('GET', `/v3/groups/${guid}/messages?limit=1000`),
    (r) => r.status === 200 && check(r.body.data),
  );
  return response.body.data;
}
