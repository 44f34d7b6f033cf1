import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';

// kafkajs's own request queue, as patched (patches/kafkajs@2.2.4.patch, ADR 0139): every broker
// connection of every client has one. No broker is needed to see when it times requests out.
const require = createRequire(import.meta.url);

interface Entry {
  correlationId: number;
  apiKey: number;
  apiName: string;
  apiVersion: number;
  resolve: (answer: unknown) => void;
  reject: (error: Error) => void;
}
interface RequestQueue {
  scheduleRequestTimeoutCheck(): void;
  push(request: { entry: Entry; expectResponse: boolean; sendRequest: () => void; requestTimeout?: number }): void;
  fulfillRequest(response: { correlationId: number; payload: unknown; size: number }): void;
  destroy(): void;
}
type RequestQueueClass = new (options: {
  maxInFlightRequests: number | null;
  requestTimeout: number;
  enforceRequestTimeout: boolean;
  clientId: string;
  broker: string;
  logger: Record<'debug' | 'info' | 'warn' | 'error', () => void>;
  isConnected?: () => boolean;
}) => RequestQueue;
const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as RequestQueueClass;

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function connectedQueue(connected = () => true): RequestQueue {
  const queue = new RequestQueue({ maxInFlightRequests: null, requestTimeout: 30_000, enforceRequestTimeout: true, clientId: 't', broker: 'b:9092', logger: quiet, isConnected: connected });
  queue.scheduleRequestTimeoutCheck(); // what a connection does once connected
  return queue;
}

/** Pushes a request that expects an answer; `outcome` tells how it ended. */
function send(queue: RequestQueue, correlationId: number, requestTimeout?: number): { outcome: string } {
  const result = { outcome: 'in flight' };
  queue.push({
    entry: {
      correlationId,
      apiKey: 1,
      apiName: 'Fetch',
      apiVersion: 11,
      resolve: () => (result.outcome = 'answered'),
      reject: (error) => (result.outcome = error.name),
    },
    expectResponse: true,
    sendRequest: () => undefined,
    ...(requestTimeout === undefined ? {} : { requestTimeout }),
  });
  return result;
}

describe('kafkajs request timeouts (patched)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('an idle connection runs no timer; a request in flight arms one for its deadline, its answer leaves none behind for long', async () => {
    vi.useFakeTimers();
    const queue = connectedQueue();
    // Unpatched: a 100 ms interval from the connect on, whatever was in flight.
    expect(vi.getTimerCount()).toBe(0);
    const fetch = send(queue, 1, 33_000);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(3_000);
    queue.fulfillRequest({ correlationId: 1, payload: null, size: 0 });
    expect(fetch.outcome).toBe('answered');
    // The armed deadline passes with nothing in flight: it does nothing and arms nothing more.
    await vi.advanceTimersByTimeAsync(31_000);
    expect(vi.getTimerCount()).toBe(0);
    queue.destroy();
  });

  it('a request with no answer times out at its deadline, also when a later one has an earlier deadline', async () => {
    vi.useFakeTimers();
    const queue = connectedQueue();
    const long = send(queue, 1, 60_000); // e.g. a JoinGroup: its own, longer timeout
    await vi.advanceTimersByTimeAsync(1_000);
    const short = send(queue, 2); // the client's 30 s
    await vi.advanceTimersByTimeAsync(30_000);
    expect(short.outcome).toBe('in flight');
    await vi.advanceTimersByTimeAsync(2);
    expect(short.outcome).toBe('KafkaJSRequestTimeoutError');
    expect(long.outcome).toBe('in flight');
    await vi.advanceTimersByTimeAsync(29_000);
    expect(long.outcome).toBe('KafkaJSRequestTimeoutError');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops checking once the connection is gone', async () => {
    vi.useFakeTimers();
    let connected = true;
    const queue = connectedQueue(() => connected);
    send(queue, 1);
    send(queue, 2, 45_000);
    connected = false;
    await vi.advanceTimersByTimeAsync(30_002);
    expect(vi.getTimerCount()).toBe(0);
  });
});
