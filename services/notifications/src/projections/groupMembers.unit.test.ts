import { testEnvelope } from '@chat/eventsourcing/testing';
import { InMemoryDocumentStore, ProjectionRuntime } from '@chat/mongo';
import { describe, expect, it } from 'vitest';
import { GROUP_MEMBER_BUCKETS, groupMemberBucketId, groupMemberBucketIds, groupMembersProjection, groupVersionId, groupVersionsProjection } from './groupMembers.js';

type Handled = Parameters<typeof groupMembersProjection.documentIds>[0];
const stream = 'group:app1:g';
const added = (version: number, uids: string[]) =>
  testEnvelope('GroupMembersAdded', stream, version, { guid: 'g', members: uids.map((uid) => ({ uid, scope: 'participant' })), addedAt: 1, membersCount: uids.length });
const joined = (version: number, uid: string) => testEnvelope('GroupMemberJoined', stream, version, { guid: 'g', uid, scope: 'participant', joinedAt: 1, membersCount: 1 });
const kicked = (version: number, uid: string) => testEnvelope('GroupMemberKicked', stream, version, { guid: 'g', uid, by: 'owner', kickedAt: 1, membersCount: 1 });
const deleted = (version: number) => testEnvelope('GroupDeleted', stream, version, { guid: 'g', deletedAt: 1 });

/** The group's members as a group message reads them: every bucket by `_id`. */
async function membersIn(store: InMemoryDocumentStore): Promise<string[]> {
  const docs = await store.findMany(groupMemberBucketIds('app1', 'g'));
  return [...docs.values()].flatMap((doc) => (doc['members'] as string[] | undefined) ?? []).sort();
}

describe('notification group members, in buckets', () => {
  const uids = Array.from({ length: 500 }, (_, i) => `u${i}`);

  it('a join or kick touches one bucket, never the whole group', () => {
    expect(groupMembersProjection.documentIds(joined(2, 'u7') as Handled)).toEqual([groupMemberBucketId('app1', 'g', 'u7')]);
    expect(groupMembersProjection.documentIds(kicked(3, 'u7') as Handled)).toEqual([groupMemberBucketId('app1', 'g', 'u7')]);
    expect(groupMembersProjection.documentIds(deleted(4) as Handled)).toHaveLength(GROUP_MEMBER_BUCKETS);
  });

  it('spreads a large group over the buckets', () => {
    const used = new Set(uids.map((uid) => groupMemberBucketId('app1', 'g', uid)));
    expect(used.size).toBe(GROUP_MEMBER_BUCKETS);
  });

  it('holds exactly the members after adds, a join, a kick and a redelivery', async () => {
    const store = new InMemoryDocumentStore();
    const runtime = new ProjectionRuntime(groupMembersProjection, store);
    const history = [added(1, uids.slice(0, 300)), added(2, uids.slice(300)), joined(3, 'late'), kicked(4, 'u42'), kicked(5, 'late')];
    await runtime.apply(history);
    await runtime.apply(history); // redelivered: a no-op
    const expected = uids.filter((uid) => uid !== 'u42').sort();
    expect(await membersIn(store)).toEqual(expected);
    // One by one gives the same documents as one batch.
    const oneByOne = new InMemoryDocumentStore();
    const single = new ProjectionRuntime(groupMembersProjection, oneByOne);
    for (const event of history) await single.apply([event]);
    expect(await membersIn(oneByOne)).toEqual(expected);
  });

  it('a deleted group has no members left', async () => {
    const store = new InMemoryDocumentStore();
    await new ProjectionRuntime(groupMembersProjection, store).apply([added(1, uids), deleted(2)]);
    expect(await membersIn(store)).toEqual([]);
  });
});

describe('a group’s version document, which a kept member list is checked against', () => {
  const scopeChanged = (version: number) => testEnvelope('GroupMemberScopeChanged', stream, version, { guid: 'g', uid: 'u1', scope: 'admin', changedAt: 1 });
  const versionOf = async (store: InMemoryDocumentStore) => (await store.findMany([groupVersionId('app1', 'g')])).get(groupVersionId('app1', 'g'))?.['version'];

  it('moves with every change of who is in the group, and only with those', async () => {
    const store = new InMemoryDocumentStore();
    const runtime = new ProjectionRuntime(groupVersionsProjection, store);
    await runtime.apply([added(1, ['u1', 'u2']), joined(2, 'u3')]);
    expect(await versionOf(store)).toBe(2);
    await runtime.apply([scopeChanged(3)]);
    expect(await versionOf(store)).toBe(2);
    await runtime.apply([kicked(4, 'u2')]);
    expect(await versionOf(store)).toBe(4);
    await runtime.apply([added(1, ['u1', 'u2'])]); // redelivered: no step back
    expect(await versionOf(store)).toBe(4);
    await runtime.apply([deleted(5)]);
    expect(await versionOf(store)).toBeUndefined();
  });
});
