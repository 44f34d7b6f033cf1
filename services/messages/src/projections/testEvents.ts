import type { EventEnvelope } from '@chat/contracts';

// The envelope builder the messages service's projection, consumer and action tests share.
let sequence = 0;

export function testEnvelope(type: string, streamId: string, version: number, data: Record<string, unknown>): EventEnvelope {
  sequence += 1;
  return {
    id: `event-${sequence}`,
    type,
    schemaVersion: 1,
    appId: 'app1',
    streamId,
    version,
    occurredAt: new Date(0).toISOString(),
    actor: { keyId: 'k', scope: 'fullAccess' },
    correlationId: `c${sequence}`,
    causationId: null,
    data,
  };
}
