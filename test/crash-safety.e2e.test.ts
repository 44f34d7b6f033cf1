import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { readBack } from './support/kafka.js';

const fixture = fileURLToPath(new URL('./fixtures/append-then-die.mjs', import.meta.url));
const usersMain = fileURLToPath(new URL('../services/users/dist/main.js', import.meta.url));

/** The first line a child process prints, or its exit. */
async function firstLine(child: ChildProcess): Promise<string> {
  let output = '';
  for await (const chunk of child.stdout!) {
    output += String(chunk);
    const newline = output.indexOf('\n');
    if (newline >= 0) return output.slice(0, newline);
  }
  throw new Error(`the process ended without output (exit ${child.exitCode})`);
}

describe('crash safety of the publish path', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });

  it('an event acknowledged by a process killed -9 before it reached Kafka is published by the restarted service', async () => {
    const database = `crash_${randomBytes(4).toString('hex')}`;
    const appId = `crash${randomBytes(3).toString('hex')}`;
    const uid = 'survivor';
    const dying = spawn(process.execPath, [fixture, inject('mongoUrl'), database, appId, uid], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(dying);
    const acknowledged = JSON.parse(await firstLine(dying)) as { id: string; type: string; streamId: string; version: number };
    expect(acknowledged).toMatchObject({ type: 'UserCreated', streamId: `user:${appId}:${uid}`, version: 1 });
    dying.kill('SIGKILL');
    await once(dying, 'exit');

    // The real users service on the same database, as after a restart of the crashed process.
    const restarted = spawn(process.execPath, [usersMain], {
      stdio: 'ignore',
      env: { ...process.env, PORT: '0', MONGO_URL: inject('mongoUrl'), MONGO_DB: database, KAFKA_BROKERS: inject('kafkaBrokers'), LOG_LEVEL: 'warn' },
    });
    children.push(restarted);
    const found = await readBack('chat.users.events', (value) => value['id'] === acknowledged.id, 30_000);
    expect(found.value).toMatchObject({ type: 'UserCreated', appId, version: 1, data: { uid } });
    expect(found.headers['type']).toBe('UserCreated');
  }, 60_000);
});
