import type { KnownEvent } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing';
import { describe, expect, it } from 'vitest';
import { ConfiguredApps } from './configuredApps.js';

const sent = (appId: string, producedAt = 10) => ({ type: 'MessageSent', appId, producedAt });
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
  it('skips types no read model applies, and messages of apps without a provider once the fence passed their time', async () => {
    const { apps, passes } = configuredApps(['loud']);
    const skipped = await apps.skip([
      { type: 'UserCreated', appId: 'quiet', producedAt: 1 },
      { type: 'MessageEdited', appId: 'loud', producedAt: 2 },
      sent('loud', 3),
      sent('quiet', 4),
      sent('quiet', 7),
      { type: undefined, appId: undefined, producedAt: 5 },
    ]);
    expect(skipped).toEqual([false, true, false, true, true, false]);
    // One fence for the batch, at its latest quiet message.
    expect(passes).toEqual([7]);
  });

  it('a provider saved before the message was produced reaches the watch by the fence: the message is decoded', async () => {
    // The provider's event reaches the watch while the fence waits.
    const holder: { apps?: ConfiguredApps } = {};
    const built = configuredApps([], () => holder.apps?.observe([providerSaved('late')]));
    const apps = (holder.apps = built.apps);
    expect(await apps.skip([sent('late'), sent('other')])).toEqual([false, true]);
    // From then on the app is known without a fence.
    expect(await apps.skip([sent('late', 20)])).toEqual([false]);
    expect(built.passes).toEqual([10]);
  });

  it('reads the stored configuration once, and a batch with no message asks nothing', async () => {
    const { apps, passes, lists } = configuredApps(['loud']);
    expect(await apps.skip([{ type: 'GroupMemberJoined', appId: 'x', producedAt: 1 }])).toEqual([false]);
    expect(lists()).toBe(0);
    await apps.skip([sent('loud')]);
    await apps.skip([sent('loud')]);
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
    await expect(apps.skip([sent('loud')])).rejects.toThrow('store away');
    fail = false;
    expect(await apps.skip([sent('loud')])).toEqual([false]);
  });
});
