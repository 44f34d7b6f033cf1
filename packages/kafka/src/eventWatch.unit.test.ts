import { KafkaJSGroupCoordinatorNotFound, KafkaJSNonRetriableError, KafkaJSProtocolError } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { brokerStillStarting } from './eventWatch.js';

// kafkajs's typings leave out these constructors' arguments.
const protocolError = (type: string, retriable: boolean) =>
  new (KafkaJSProtocolError as unknown as new (e: { type: string; code: number; retriable: boolean; message: string }) => Error)({ type, code: 14, retriable, message: type });
const coordinatorNotFound = () => new (KafkaJSGroupCoordinatorNotFound as unknown as new (message: string) => Error)('Failed to find group coordinator');

describe('brokerStillStarting', () => {
  it('retries a coordinator still loading and one not found yet', () => {
    expect(brokerStillStarting(protocolError('COORDINATOR_LOAD_IN_PROGRESS', true))).toBe(true);
    expect(brokerStillStarting(coordinatorNotFound())).toBe(true);
  });

  it('gives up on anything else at once', () => {
    expect(brokerStillStarting(protocolError('GROUP_AUTHORIZATION_FAILED', false))).toBe(false);
    expect(brokerStillStarting(new KafkaJSNonRetriableError('topic authorization failed'))).toBe(false);
    expect(brokerStillStarting(new Error('boom'))).toBe(false);
    expect(brokerStillStarting('boom')).toBe(false);
  });
});
