import type { EventEnvelope } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { BoundedPublisher } from './boundedPublisher.js';

const never = { publish: () => new Promise<void>(() => undefined) };
const quick = { publish: () => Promise.resolve() };
const failing = { publish: () => Promise.reject(new Error('broker down')) };

describe('BoundedPublisher', () => {
  it('passes a prompt acknowledgement through', async () => {
    await expect(new BoundedPublisher(quick, 50).publish([] as EventEnvelope[])).resolves.toBeUndefined();
  });

  it('gives up after the timeout so the command can answer', async () => {
    await expect(new BoundedPublisher(never, 20).publish([])).rejects.toThrow(/within 20 ms/);
  });

  it('reports a prompt failure as such', async () => {
    await expect(new BoundedPublisher(failing, 50).publish([])).rejects.toThrow('broker down');
  });
});
