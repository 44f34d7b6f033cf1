import type { KnownEvent } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import type { RecordHeaders } from '@chat/kafka';
import { describe, expect, it } from 'vitest';
import { ConfiguredApps } from './configuredApps.js';

const record = (type: string | undefined, appId: string | undefined, timestamp: number): RecordHeaders => ({ topic: 'chat.messages.events', type, appId, keyId: undefined, timestamp });
const sent = (appId: string, timestamp = 10) => record('MessageSent', appId, timestamp);
const providerSaved = (appId: string) =>
  ({
    ...testEnvelope('NotificationProviderSaved', `notifications-app:${appId}`, 1, {
      channel: 'push',
      provider: 'custom',
      providerId: 'default',
      settings: {},
      secrets: {},
      hints: {},
      savedAt: 1,
    }),
    appId,
  }) as unknown as KnownEvent;

function configuredApps(stored: string[], onPass: (time: number) => void = () => undefined) {
  const passes: number[] = [];
  let lists = 0;
  const apps = new ConfiguredApps({
    listConfigured: () => {
      lists += 1;
      return Promise.resolve(stored);
    },
    handledTypes: new Set(['UserCreated', 'GroupMemberJoined']),
    fence: {
      pass: (time) => {
        passes.push(time);
        onPass(time);
        return Promise.resolve();
      },
    },
  });
  return { apps, passes, lists: () => lists };
}

describe('which messages the notifications consumer leaves undecoded', () => {
  it('leaves undecoded the types no read model applies, and messages of apps without a provider once the fence passed their time', async () => {
    const { apps, passes } = configuredApps(['loud']);
    const kept = await apps.select([
      record('UserCreated', 'quiet', 1),
      record('MessageEdited', 'loud', 2),
      sent('loud', 3),
      sent('quiet', 4),
      sent('quiet', 7),
      record(undefined, undefined, 5),
    ]);
    expect(kept).toEqual([true, false, true, false, false, true]);
    // One fence for the batch, at its latest quiet message.
    expect(passes).toEqual([7]);
  });

  it('a provider saved before the message was produced reaches the watch by the fence: the message is decoded', async () => {
    // The provider's event reaches the watch while the fence waits.
    const holder: { apps?: ConfiguredApps } = {};
    const built = configuredApps([], () => holder.apps?.observe([providerSaved('late')]));
    const apps = (holder.apps = built.apps);
    expect(await apps.select([sent('late'), sent('other')])).toEqual([true, false]);
    // From then on the app is known without a fence.
    expect(await apps.select([sent('late', 20)])).toEqual([true]);
    expect(built.passes).toEqual([10]);
  });

  it('reads the stored configuration once, and a batch with no message asks nothing', async () => {
    const { apps, passes, lists } = configuredApps(['loud']);
    expect(await apps.select([record('GroupMemberJoined', 'x', 1)])).toEqual([true]);
    expect(lists()).toBe(0);
    await apps.select([sent('loud')]);
    await apps.select([sent('loud')]);
    expect(lists()).toBe(1);
    expect(passes).toEqual([]);
  });

  it('a failed read is asked again on the next batch (the consumer retries it as an outage)', async () => {
    let fail = true;
    const apps = new ConfiguredApps({
      listConfigured: () => (fail ? Promise.reject(new Error('store away')) : Promise.resolve(['loud'])),
      handledTypes: new Set(),
      fence: { pass: () => Promise.resolve() },
    });
    await expect(apps.select([sent('loud')])).rejects.toThrow('store away');
    fail = false;
    expect(await apps.select([sent('loud')])).toEqual([true]);
  });
});
