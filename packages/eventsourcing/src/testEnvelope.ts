import type { EventEnvelope } from '@chat/contracts';

let sequence = 0;

/**
 * An envelope as a service's producer would publish it, for projection and consumer tests: each call
 * gets a new event id; the app, actor and correlation are fixed test values.
 */
export function testEnvelope(
  type: string,
  streamId: string,
  version: number,
  data: Record<string, unknown>,
  occurredAtMs = 0,
): EventEnvelope {
  sequence += 1;
  return {
    id: `event-${sequence}`,
    type,
    schemaVersion: 1,
    appId: 'app1',
    streamId,
    version,
    occurredAt: new Date(occurredAtMs).toISOString(),
    actor: { keyId: 'k', scope: 'fullAccess' },
    correlationId: `c${sequence}`,
    causationId: null,
    data,
  };
}
