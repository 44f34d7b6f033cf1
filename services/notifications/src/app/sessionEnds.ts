import type { KnownEvent } from '@chat/contracts';
import { commandMetadata } from '@chat/eventsourcing';
import type { CommandRunner } from '@chat/eventsourcing';
import type { NotificationReadModels } from '../adapters/readModels.js';
import { recipientDecider, recipientStreamId } from '../domain/recipient.js';
import { notifierActor } from './notifier.js';

/** The users service's event that ends sessions: the only one of its auth-token events read here. */
export const SESSION_END_TYPE = 'AuthTokensRevoked';

type Revocation = Extract<KnownEvent, { type: typeof SESSION_END_TYPE }>;

interface SessionsEnded {
  last: Revocation;
  sessionIds: Set<string>;
}

/**
 * A push token belongs to the session (auth token) it was registered with, as CometChat's logout
 * unregisters it: when the users service revokes auth tokens (deleted, flushed, pushed out by the
 * per-user limit), the push tokens registered with them go too (ADR 0151), so a device that signed out
 * is not woken for someone else's messages.
 *
 * Revocations are rare beside messages, so the recipient documents of a run's revoked users are read
 * first (one `_id` set read per app) and a command runs only for a user with a token of an ended
 * session; the command decides on the recipient's own stream, so a redelivered revocation removes
 * nothing twice.
 */
export class SessionEnds {
  constructor(
    private readonly runner: CommandRunner,
    private readonly readModels: NotificationReadModels,
  ) {}

  async apply(events: readonly KnownEvent[]): Promise<void> {
    // Per app, per user: the last revocation (its correlation and cause) and every session it ended.
    const byApp = new Map<string, Map<string, SessionsEnded>>();
    for (const event of events) {
      if (event.type !== SESSION_END_TYPE) continue;
      const users = byApp.get(event.appId) ?? new Map<string, SessionsEnded>();
      const ended = users.get(event.data.uid) ?? { last: event, sessionIds: new Set<string>() };
      for (const id of event.data.tokenIds) ended.sessionIds.add(id);
      ended.last = event;
      users.set(event.data.uid, ended);
      byApp.set(event.appId, users);
    }
    await Promise.all([...byApp].map(([appId, users]) => this.endInApp(appId, users)));
  }

  /** One read of the app's revoked users' recipients, then a command for each holding a token of an ended session. */
  private async endInApp(appId: string, users: ReadonlyMap<string, SessionsEnded>): Promise<void> {
    const recipients = await this.readModels.storedRecipients(appId, [...users.keys()]);
    const holding = [...users].filter(([uid, { sessionIds }]) =>
      Object.values(recipients.get(uid)?.tokens ?? {}).some((token) => sessionIds.has(token.sessionId)),
    );
    await Promise.all(holding.map(([, { last, sessionIds }]) => this.end(last, sessionIds)));
  }

  private async end(event: Revocation, sessionIds: ReadonlySet<string>): Promise<void> {
    const { appId } = event;
    const uid = event.data.uid;
    await this.runner.run({
      decider: recipientDecider,
      streamId: recipientStreamId(appId, uid),
      command: { type: 'EndSessions', uid, sessionIds: [...sessionIds], at: event.data.revokedAt },
      metadata: commandMetadata({ actor: notifierActor(appId), requestId: event.correlationId, causationId: event.id }, new Date()),
    });
  }
}
