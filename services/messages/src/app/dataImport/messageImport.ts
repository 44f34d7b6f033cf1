import { ApiError, groupConversationId, userConversationId } from '@chat/contracts';
import type { MessageSent, RequestContext } from '@chat/contracts';
import type { KeyedRecord, RecordResult } from '@chat/http';
import { readWithPatience } from '@chat/mongo';
import type { Facts, MessagesReadModels } from '../../adapters/readModels.js';
import { groupEntityOf, messageView, userEntityOf } from '@chat/contracts';
import { docOfSent } from '../../projections/messages.js';
import type { KnownUserDoc } from '../../projections/users.js';
import type { MessageSending, SendInput } from '../messageSending.js';

/** A message of a data import, as the http layer validated it: a send body plus its sender, import id and the caller's times. */
export interface ImportedMessage extends Omit<SendInput, 'sender' | 'parentId'> {
  muid: string;
  sender: string;
  sentAt: number;
  deliveredAt?: number;
  readAt?: number;
}

interface ImportFacts {
  users: Facts['users'];
  groups: Map<string, Facts['group']>;
}

interface Accepted {
  key: string;
  conversationId: string;
  message: Omit<MessageSent, 'id'>;
}

function known(user: KnownUserDoc | undefined): KnownUserDoc | undefined {
  return user && !user.deleted ? user : undefined;
}

function conversationOf(m: ImportedMessage): string {
  return m.receiverType === 'group' ? groupConversationId(m.receiver) : userConversationId(m.sender, m.receiver);
}

/**
 * `POST /data_import/messages`. History is imported as it was: the sender and receiver must exist
 * (users imported first, groups too), but membership, blocks and scope rules of today do not apply.
 * Each conversation's new messages become one `ImportMessages` command whose ids are allocated in
 * `sentAt` order; the conversations of a request are appended together by the runner's group commit.
 * A `muid` imported before is answered with its stored message and nothing is written (reruns).
 */
export class MessageImport {
  // Concurrent imports into one conversation take turns in the runner's lane for its stream.
  constructor(
    private readonly app: Pick<MessageSending, 'appendWithIds'>,
    private readonly readModels: Pick<MessagesReadModels, 'findImported' | 'findFacts'>,
  ) {}

  async importAll(context: RequestContext, records: readonly KeyedRecord<ImportedMessage>[]): Promise<Map<string, RecordResult>> {
    const { appId } = context.actor;
    const results = new Map<string, RecordResult>();
    const imported = await this.readModels.findImported(appId, records.map((r) => r.value.muid));
    const fresh = records.filter((r) => {
      const earlier = imported.get(r.value.muid);
      if (earlier) results.set(r.key, { ok: messageView(earlier) });
      return !earlier;
    });
    const facts = await this.factsOf(appId, fresh.map((r) => r.value));
    const conversations = new Map<string, Accepted[]>();
    for (const { key, value } of fresh) {
      try {
        const accepted = this.accept(key, value, facts);
        conversations.set(accepted.conversationId, [...(conversations.get(accepted.conversationId) ?? []), accepted]);
      } catch (error) {
        results.set(key, { error });
      }
    }
    await Promise.all(
      [...conversations].map(async ([conversationId, accepted]) => {
        // Stable: messages of the same second keep the caller's order.
        const ordered = [...accepted].sort((a, b) => a.message.sentAt - b.message.sentAt);
        try {
          const events = await this.app.appendWithIds(context, conversationId, ordered.length, (ids) => ({
            type: 'ImportMessages',
            messages: ordered.map((a, index) => ({ ...a.message, id: ids[index] ?? '0' })),
          }));
          events.forEach((event, index) => {
            const key = ordered[index]?.key;
            if (key !== undefined) results.set(key, { ok: messageView(docOfSent(appId, event.data as MessageSent)) });
          });
        } catch (error) {
          for (const a of ordered) results.set(a.key, { error });
        }
      }),
    );
    return results;
  }

  /**
   * The users and groups the records name, read by `_id` (users at once, one read set per group).
   * Users and groups are imported through other services just before their messages, and reach this
   * service's facts through Kafka: a sender or group still missing is waited for briefly, as a send
   * waits for them, so a migration that imports users and then messages at once is not refused for
   * that lag. A request naming an id that never existed pays the wait once.
   */
  private async factsOf(appId: string, messages: readonly ImportedMessage[]): Promise<ImportFacts> {
    // Senders and user receivers must exist (worth waiting for); mentioned users are kept only if they do.
    const needed = [...new Set(messages.flatMap((m) => [m.sender, ...(m.receiverType === 'user' ? [m.receiver] : [])]))];
    const uids = [...new Set([...needed, ...messages.flatMap((m) => m.mentionedUids)])];
    const guids = [...new Set(messages.filter((m) => m.receiverType === 'group').map((m) => m.receiver))];
    const read = async (): Promise<ImportFacts> => {
      const [userFacts, ...groupFacts] = await Promise.all([
        this.readModels.findFacts(appId, { users: uids }),
        ...guids.map((guid) => this.readModels.findFacts(appId, { users: [], guid })),
      ]);
      return { users: userFacts?.users ?? new Map(), groups: new Map(guids.map((guid, index) => [guid, groupFacts[index]?.group ?? null])) };
    };
    const complete = (facts: ImportFacts) =>
      needed.every((uid) => facts.users.has(uid)) && guids.every((guid) => facts.groups.get(guid) !== null);
    return readWithPatience(read, { until: complete });
  }

  private accept(key: string, m: ImportedMessage, facts: ImportFacts): Accepted {
    const sender = known(facts.users.get(m.sender));
    if (!sender) throw new ApiError('ERR_UID_NOT_FOUND', `The sender ${m.sender} does not exist; import users before their messages.`);
    const conversationId = conversationOf(m);
    let receiver: Record<string, unknown>;
    if (m.receiverType === 'user') {
      if (m.receiver === m.sender) throw new ApiError('ERR_MESSAGE_TO_SELF', 'A one-on-one message needs a receiver other than the sender.');
      const user = known(facts.users.get(m.receiver));
      if (!user) throw new ApiError('ERR_UID_NOT_FOUND', `The receiver ${m.receiver} does not exist; import users before their messages.`);
      receiver = { entity: userEntityOf(user, conversationId), entityType: 'user' };
    } else {
      const group = facts.groups.get(m.receiver);
      if (!group) throw new ApiError('ERR_GUID_NOT_FOUND', `The group ${m.receiver} does not exist; import groups before their messages.`);
      receiver = { entity: groupEntityOf(group), entityType: 'group' };
    }
    const mentioned = m.mentionedUids.map((uid) => known(facts.users.get(uid))).filter((u): u is KnownUserDoc => u !== undefined);
    return {
      key,
      conversationId,
      message: {
        conversationId,
        sender: m.sender,
        receiver: m.receiver,
        receiverType: m.receiverType,
        category: m.category,
        type: m.type,
        data: { ...m.data, entities: { sender: { entity: userEntityOf(sender), entityType: 'user' }, receiver } },
        ...(m.tags !== undefined ? { tags: m.tags } : {}),
        muid: m.muid,
        ...(mentioned.length > 0 ? { mentionedUids: mentioned.map((u) => u.uid) } : {}),
        sentAt: m.sentAt,
        ...(m.deliveredAt !== undefined ? { deliveredAt: m.deliveredAt } : {}),
        ...(m.readAt !== undefined ? { readAt: m.readAt } : {}),
        imported: true,
      },
    };
  }
}
