import { describe, expect, it } from 'vitest';
import { authorizeTyping, typingFrameText, typingRecipients } from './typing.js';
import type { WriteAccess } from './typing.js';

const access: WriteAccess = {
  userExists: (appId, uid) => Promise.resolve(appId === 'app' && ['alice', 'bob'].includes(uid)),
  isMember: (appId, guid, uid) => appId === 'app' && guid === 'crew' && uid === 'alice',
};

describe('typing authorization', () => {
  it('lets a user type to another user of the app and to a group it is a member of', async () => {
    expect(await authorizeTyping('app', 'alice', { type: 'typing_started', receiver: 'bob', receiverType: 'user' }, access)).toEqual({
      ok: true,
      notice: { appId: 'app', type: 'typing_started', sender: 'alice', receiver: 'bob', receiverType: 'user' },
    });
    expect(await authorizeTyping('app', 'alice', { type: 'typing_ended', receiver: 'crew', receiverType: 'group' }, access)).toMatchObject({ ok: true });
  });

  it('refuses a user that does not exist, itself, a group it is not in, another app', async () => {
    expect(await authorizeTyping('app', 'alice', { type: 'typing_started', receiver: 'nobody', receiverType: 'user' }, access)).toMatchObject({ ok: false, code: 'ERR_UID_NOT_FOUND' });
    expect(await authorizeTyping('app', 'alice', { type: 'typing_started', receiver: 'alice', receiverType: 'user' }, access)).toMatchObject({ ok: false, code: 'ERR_BAD_FRAME' });
    expect(await authorizeTyping('app', 'bob', { type: 'typing_started', receiver: 'crew', receiverType: 'group' }, access)).toMatchObject({ ok: false, code: 'ERR_GROUP_NOT_JOINED' });
    expect(await authorizeTyping('other', 'alice', { type: 'typing_started', receiver: 'bob', receiverType: 'user' }, access)).toMatchObject({ ok: false });
  });

  it('refuses frames outside the contract, naming the field', async () => {
    const missing = await authorizeTyping('app', 'alice', { type: 'typing_started', receiverType: 'user' }, access);
    expect(missing).toMatchObject({ ok: false, code: 'ERR_BAD_FRAME' });
    expect(!missing.ok && missing.message).toContain('receiver');
    expect(await authorizeTyping('app', 'alice', { type: 'typing_started', receiver: 'bob', receiverType: 'channel' }, access)).toMatchObject({ ok: false, code: 'ERR_BAD_FRAME' });
    expect(await authorizeTyping('app', 'alice', { type: 'typing_started', receiver: 'x'.repeat(101), receiverType: 'user' }, access)).toMatchObject({ ok: false });
  });

  it('reaches the peer, or the group members but the sender; the frame has no cursor', () => {
    const members = new Set(['alice', 'bob', 'carol']);
    expect(typingRecipients({ appId: 'app', type: 'typing_started', sender: 'alice', receiver: 'crew', receiverType: 'group' }, () => members)).toEqual(['bob', 'carol']);
    const notice = { appId: 'app', type: 'typing_ended', sender: 'alice', receiver: 'bob', receiverType: 'user' } as const;
    expect(typingRecipients(notice, () => members)).toEqual(['bob']);
    expect(JSON.parse(typingFrameText(notice))).toEqual({ type: 'typing_ended', data: { sender: 'alice', receiver: 'bob', receiverType: 'user' } });
  });
});
