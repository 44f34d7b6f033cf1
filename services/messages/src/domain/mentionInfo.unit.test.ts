import { describe, expect, it } from 'vitest';
import type { KnownUserDoc } from '../projections/users.js';
import { mentionedUidsOf, withMentionInfo } from './mentionInfo.js';

const user = (uid: string, blocked: string[], tags?: string[]): KnownUserDoc => ({
  kind: 'user', appId: 'app1', uid, name: uid, role: 'default', createdAt: 1, deactivated: false, deleted: false, blocked, ...(tags ? { tags } : {}),
});
const users = new Map([
  ['amy', user('amy', ['cleo'])],
  ['cleo', user('cleo', ['amy'], ['vip'])],
  ['dan', user('dan', [])],
]);
const message = { id: '1', mentionedUids: ['cleo', 'dan'], mentionedUsers: [{ uid: 'cleo', name: 'cleo' }, { uid: 'dan', name: 'dan' }] };

describe('mention info', () => {
  it('adds tags (empty when none) and the viewer’s block relations both ways', () => {
    const shown = withMentionInfo(message, users, { tags: true, blockedFor: 'amy' });
    expect(shown['mentionedUsers']).toEqual([
      { uid: 'cleo', name: 'cleo', tags: ['vip'], blockedByMe: true, hasBlockedMe: true },
      { uid: 'dan', name: 'dan', tags: [], blockedByMe: false, hasBlockedMe: false },
    ]);
  });

  it('adds only what was asked, and leaves messages without mentions alone', () => {
    expect(withMentionInfo(message, users, { tags: true })['mentionedUsers']).toEqual([
      { uid: 'cleo', name: 'cleo', tags: ['vip'] },
      { uid: 'dan', name: 'dan', tags: [] },
    ]);
    const plain = { id: '2' };
    expect(withMentionInfo(plain, users, { tags: true, blockedFor: 'amy' })).toBe(plain);
    expect(mentionedUidsOf([message, plain, { mentionedUids: ['dan', 'eve'] }])).toEqual(['cleo', 'dan', 'eve']);
  });
});
