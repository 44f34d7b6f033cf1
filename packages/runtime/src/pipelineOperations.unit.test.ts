import { Probes } from '@chat/http';
import { describe, expect, it } from 'vitest';
import { PipelineOperations } from './pipelineOperations.js';
import type { PipelineParts } from './pipelineOperations.js';

function parts(state: { store: boolean; producer: boolean; consumer: boolean }): PipelineParts {
  return {
    db: { command: () => (state.store ? Promise.resolve({ ok: 1 }) : Promise.reject(new Error('no store'))) },
    kafka: {},
    producer: {
      get connected() {
        return state.producer;
      },
    },
    consumer: {
      groupId: 'g',
      get joined() {
        return state.consumer;
      },
      health: () => ({ state: state.consumer ? 'running' : 'crashed' }),
    },
  } as unknown as PipelineParts;
}

describe('PipelineOperations readiness gates', () => {
  it("'pipeline': store, producer and consumer all gate readiness", async () => {
    const state = { store: true, producer: false, consumer: true };
    const probes = new Probes();
    new PipelineOperations(parts(state)).registerChecks(probes);
    expect(await probes.readiness()).toEqual({ ready: false, checks: { store: 'ok', producer: 'failing', consumer: 'ok' } });
  });

  it("'store': Kafka away degrades but keeps the process in rotation; the store alone takes it out", async () => {
    const state = { store: true, producer: false, consumer: false };
    const probes = new Probes();
    new PipelineOperations(parts(state)).registerChecks(probes, 'store');
    expect(await probes.readiness()).toEqual({
      ready: true,
      checks: { store: 'ok', producer: 'failing', consumer: 'failing' },
      degraded: ['producer', 'consumer'],
    });
    state.store = false;
    expect((await probes.readiness()).ready).toBe(false);
  });
});
