import { RecentlyUsed } from '@chat/eventsourcing';
import type { RecipientDocument } from '../projections/recipients.js';

/**
 * An app's recipients as this process read them (ADR 0049, 0059), valid for one generation of the
 * recipients directory: the directory hands out a new generation whenever its watch (or this
 * process's own projection) saw one of the app's recipients change, once the read model shows that
 * change. Users read under the current generation are used as they are; others are read and kept.
 */
export class KeptRecipients {
  /** Per app: the generation the kept users were read under, and the users (null: no such user then). */
  private readonly apps: RecentlyUsed<string, { generation: object; recipients: Map<string, RecipientDocument | null> }>;

  constructor(
    private readonly read: (appId: string, uids: readonly string[]) => Promise<ReadonlyMap<string, RecipientDocument>>,
    apps: number,
    private readonly perApp: number,
  ) {
    this.apps = new RecentlyUsed(apps);
  }

  async find(appId: string, uids: readonly string[], generation: object): Promise<Map<string, RecipientDocument>> {
    let kept = this.apps.get(appId);
    let unread = kept?.generation === generation ? uids.filter((uid) => !kept!.recipients.has(uid)) : uids;
    if (kept?.generation !== generation || kept.recipients.size + unread.length > this.perApp) {
      kept = { generation, recipients: new Map() };
      this.apps.set(appId, kept);
      unread = uids;
    }
    if (unread.length > 0) {
      const fresh = await this.read(appId, unread);
      for (const uid of unread) kept.recipients.set(uid, fresh.get(uid) ?? null);
    }
    const found = new Map<string, RecipientDocument>();
    for (const uid of uids) {
      const recipient = kept.recipients.get(uid);
      if (recipient) found.set(uid, recipient);
    }
    return found;
  }
}
