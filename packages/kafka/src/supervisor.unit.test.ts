import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { Supervisor } from './supervisor.js';
import type { Launch } from './supervisor.js';

/** Something that runs until told to crash, and counts its runs and stops. */
function crashable(failFirstStarts = 0) {
  const runs: Array<{ crash: (error: unknown) => void; stopped: boolean }> = [];
  let starts = 0;
  const launch: Launch = (crashed) => {
    starts += 1;
    if (starts > 1 && starts <= 1 + failFirstStarts) return Promise.reject(new Error('broker unreachable'));
    const run = { crash: crashed, stopped: false };
    runs.push(run);
    return Promise.resolve({
      stop: () => {
        run.stopped = true;
        return Promise.resolve();
      },
    });
  };
  return { launch, runs, starts: () => starts };
}

const quiet = pino({ level: 'silent' });

describe('Supervisor', () => {
  it('starts a new consumer after a crash it would not come back from, and says so in health()', async () => {
    const thing = crashable();
    const supervisor = new Supervisor({ name: 'test', launch: thing.launch, logger: quiet, backoffMs: () => 5 });
    expect(supervisor.health().state).toBe('stopped');
    await supervisor.start();
    expect(supervisor.health()).toEqual({ state: 'running', restarts: 0, lastCrash: null });

    thing.runs[0]!.crash(new Error('KafkaJSNonRetriableError: boom'));
    expect(supervisor.health()).toMatchObject({ state: 'restarting', restarts: 1, lastCrash: { error: 'KafkaJSNonRetriableError: boom' } });
    await sleep(50);
    expect(thing.runs).toHaveLength(2);
    expect(thing.runs[0]!.stopped).toBe(true);
    expect(supervisor.health()).toMatchObject({ state: 'running', restarts: 1 });
    await supervisor.stop();
    expect(thing.runs[1]!.stopped).toBe(true);
    expect(supervisor.health().state).toBe('stopped');
  });

  it('keeps trying while a new consumer cannot start, and ignores a late crash report of a replaced one', async () => {
    const thing = crashable(3);
    const supervisor = new Supervisor({ name: 'test', launch: thing.launch, logger: quiet, backoffMs: () => 5 });
    await supervisor.start();
    thing.runs[0]!.crash(new Error('first'));
    await sleep(100);
    expect(thing.starts()).toBe(5);
    expect(supervisor.health()).toMatchObject({ state: 'running', restarts: 1 });
    thing.runs[0]!.crash(new Error('stale report'));
    expect(supervisor.health()).toMatchObject({ state: 'running', restarts: 1 });
    await supervisor.stop();
  });

  it('does not restart after stop()', async () => {
    const thing = crashable();
    const supervisor = new Supervisor({ name: 'test', launch: thing.launch, logger: quiet, backoffMs: () => 5 });
    await supervisor.start();
    const crash = thing.runs[0]!.crash;
    await supervisor.stop();
    crash(new Error('after stop'));
    await sleep(30);
    expect(thing.runs).toHaveLength(1);
    expect(supervisor.health()).toMatchObject({ state: 'stopped', restarts: 0 });
  });

  it('tries a failed first launch again before the start fails, and fails after a few', async () => {
    let launches = 0;
    const failingTwice: Launch = () => (++launches <= 2 ? Promise.reject(new Error('first join crashed')) : Promise.resolve({ stop: () => Promise.resolve() }));
    const supervisor = new Supervisor({ name: 'test', launch: failingTwice, logger: quiet, backoffMs: () => 5 });
    await supervisor.start();
    expect(launches).toBe(3);
    expect(supervisor.health()).toMatchObject({ state: 'running', restarts: 0 });
    await supervisor.stop();

    let attempts = 0;
    const neverStarts: Launch = () => {
      attempts += 1;
      return Promise.reject(new Error('broker refuses'));
    };
    const hopeless = new Supervisor({ name: 'test', launch: neverStarts, logger: quiet, backoffMs: () => 5 });
    await expect(hopeless.start()).rejects.toThrow('broker refuses');
    expect(attempts).toBe(5);
  });

  it('launches nothing more once stopped while a failed first launch waits for its retry', async () => {
    let launches = 0;
    const failing: Launch = () => {
      launches += 1;
      return Promise.reject(new Error('first join crashed'));
    };
    const supervisor = new Supervisor({ name: 'test', launch: failing, logger: quiet, backoffMs: () => 30 });
    const started = supervisor.start();
    await sleep(5);
    await supervisor.stop();
    await expect(started).rejects.toThrow('first join crashed');
    await sleep(60);
    expect(launches).toBe(1);
  });
});
