import type { KnownEvent } from '@chat/contracts';
import { testEnvelope } from '@chat/eventsourcing/testing';
import type { HandedRun } from '@chat/kafka';
import { describe, expect, it } from 'vitest';
import type { LogDocument, NotificationDocument } from '../domain/notificationRecord.js';
import { emptyRecipient, muteKey } from '../domain/recipient.js';
import { effectiveSettings } from '../domain/settings.js';
import type { RecipientDocument } from '../projections/recipients.js';
import type { AppDirectory, AppEntry } from './directory.js';
import { Notifier, notificationIdOf } from './notifier.js';

const entry: AppEntry = {
  settings: effectiveSettings(null),
  providers: new Map([['custom:default', { channel: 'push', provider: 'custom', providerId: 'default', settings: {}, secrets: {} }]]),
  defaults: {},
};

function recipient(uid: string, mutedGroup?: string): RecipientDocument {
  const mutes = mutedGroup ? { [muteKey('group', mutedGroup)]: { id: mutedGroup, type: 'group' as const, until: null } } : {};
  return { ...emptyRecipient(), mutes, appId: 'app1', uid, exists: true, active: true };
}

function sent(id: string, receiver: string, receiverType: 'user' | 'group'): KnownEvent {
  return testEnvelope('MessageSent', `conversation:app1:${receiver}`, 1, {
    id,
    conversationId: `c-${receiver}`,
    sender: 'alice',
    receiver,
    receiverType,
    category: 'message',
    type: 'text',
    data: { text: 'hi' },
    sentAt: 1,
  }) as KnownEvent;
}

/** A notifier over fakes: what it hands to `take`, and how often it read the group's members. */
function notifier() {
  const generation = {};
  const records: Array<{ skipped: LogDocument[]; queued: NotificationDocument[]; run: HandedRun }> = [];
  const groupReads: string[] = [];
  const subject = new Notifier({
    readModels: {
      groupMembers: (_appId, guid) => {
        groupReads.push(guid);
        return Promise.resolve(['alice', 'bob', 'carol']);
      },
      findRecipients: (_appId, uids) => Promise.resolve(new Map(uids.map((uid) => [uid, recipient(uid, uid === 'carol' ? 'team' : undefined)]))),
    },
    directory: { get: () => Promise.resolve(entry) } as unknown as AppDirectory,
    recipients: { get: () => Promise.resolve(generation) },
    region: 'us',
    defaultTimezone: 'UTC',
    take: (skipped, queued, run) => {
      records.push({ skipped: [...skipped], queued: [...queued], run });
      return Promise.resolve();
    },
    clock: () => Date.parse('2026-01-05T12:00:00Z'),
  });
  return { subject, records, groupReads };
}

describe('the notifier records a run of messages’ decisions together', () => {
  it('one record for the run: the skips logged, the sends to make', async () => {
    const { subject, records } = notifier();
    await subject.queue([sent('m1', 'bob', 'user'), sent('m2', 'team', 'group')]);
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(record!.skipped.map((s) => [s.messageId, s.recipient, s.reason, s.notificationTriggered])).toEqual([['m2', 'carol', 'MUTE_PREFERENCE', false]]);
    expect(record!.queued.map((q) => [q.messageId, q.recipient, q.status, q.attempts])).toEqual([
      ['m1', 'bob', 'pending', 0],
      ['m2', 'bob', 'pending', 0],
    ]);
  });

  it('the same message event decided again (redelivered) gets the same ids', async () => {
    const { subject, records } = notifier();
    const event = sent('m2', 'team', 'group');
    await subject.queue([event]);
    await subject.queue([event]);
    const ids = records.map((r) => [...r.skipped, ...r.queued].map((d) => d.notificationId));
    expect(ids[0]).toEqual(ids[1]);
    expect(new Set(ids[0]).size).toBe(2);
  });

  it('reads a group’s members once per run, however many of its messages the run holds', async () => {
    const { subject, records, groupReads } = notifier();
    await subject.queue([sent('m1', 'team', 'group'), sent('m2', 'team', 'group'), sent('m3', 'crew', 'group')]);
    expect(groupReads).toEqual(['team', 'crew']);
    expect(records[0]!.queued.map((q) => `${q.messageId}:${q.recipient}`)).toEqual(['m1:bob', 'm2:bob', 'm3:bob', 'm3:carol']);
  });

  it('passes on whether the run may be a repeat (ADR 0062): unsaid, it may', async () => {
    const { subject, records } = notifier();
    await subject.queue([sent('m1', 'bob', 'user')], { mayRepeat: false });
    await subject.queue([sent('m2', 'bob', 'user')]);
    expect(records.map((r) => r.run.mayRepeat)).toEqual([false, true]);
  });
});

describe('notificationIdOf', () => {
  it('gives a (message, recipient, target) the id earlier builds gave it, so a replayed message is decided once', () => {
    // The first 32 hex digits of SHA-256("event-1\nuser-2\npush:custom:p1"), as stored by earlier builds.
    expect(notificationIdOf('event-1', 'user-2', 'push:custom:p1')).toBe('eca19ba9ac70842a7725d0fcd269c09f');
  });
});
