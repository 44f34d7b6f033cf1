import { describe, expect, it } from 'vitest';
import { emptyRecipient } from '../domain/recipient.js';
import type { RecipientDocument } from '../projections/recipients.js';
import { KeptRecipients } from './keptRecipients.js';

function recipient(uid: string, timezone: string): RecipientDocument {
  return { ...emptyRecipient(), timezone, appId: 'app1', uid, exists: true, active: true };
}

/** A store whose users change under the reader: what it answers, and which users each read asked for. */
function store() {
  const users = new Map<string, RecipientDocument>([
    ['bob', recipient('bob', 'UTC')],
    ['carol', recipient('carol', 'UTC')],
  ]);
  const reads: string[][] = [];
  const kept = new KeptRecipients(
    (_appId, uids) => {
      reads.push([...uids]);
      return Promise.resolve(new Map(uids.flatMap((uid) => (users.has(uid) ? [[uid, users.get(uid)!] as const] : []))));
    },
    10,
    3,
  );
  return { users, reads, kept };
}

describe('recipients kept per generation of the recipients directory', () => {
  it('reads a user once per generation, absent ones included, and again under a new generation', async () => {
    const { users, reads, kept } = store();
    const first = {};
    expect([...(await kept.find('app1', ['bob', 'dave'], first)).keys()]).toEqual(['bob']);
    users.set('bob', recipient('bob', 'Asia/Tokyo'));
    users.set('dave', recipient('dave', 'UTC'));
    // Same generation: what was read is used as it is, only the new user is read.
    const same = await kept.find('app1', ['bob', 'dave', 'carol'], first);
    expect(same.get('bob')?.timezone).toBe('UTC');
    expect(same.has('dave')).toBe(false);
    expect(reads).toEqual([['bob', 'dave'], ['carol']]);
    // The directory saw a change: everything is read again.
    const next = await kept.find('app1', ['bob', 'dave'], {});
    expect(next.get('bob')?.timezone).toBe('Asia/Tokyo');
    expect(next.has('dave')).toBe(true);
    expect(reads.at(-1)).toEqual(['bob', 'dave']);
  });

  it('starts afresh past the users it keeps per app, and keeps apps apart', async () => {
    const { reads, kept } = store();
    const generation = {};
    await kept.find('app1', ['bob', 'carol'], generation);
    await kept.find('app2', ['bob'], generation);
    await kept.find('app1', ['bob', 'carol'], generation);
    expect(reads).toEqual([['bob', 'carol'], ['bob']]);
    await kept.find('app1', ['erin', 'bob'], generation);
    // Three kept plus two unread is past the bound of three: read afresh.
    await kept.find('app1', ['frank', 'gina'], generation);
    expect(reads.slice(2)).toEqual([['erin'], ['frank', 'gina']]);
  });
});
