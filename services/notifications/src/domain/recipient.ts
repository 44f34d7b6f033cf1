import type { PushTokenRegistered, PushTokenType } from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';
import { mergeDeep } from './settings.js';
import type { UserPreferences } from './preferences.js';

/**
 * Tokens are kept under an escaped form of themselves: stored field names may not contain `.` or start
 * with `$`, and a provider's token may.
 */
export function tokenKey(token: string): string {
  return token.replace(/[%.$]/g, (c) => `%${c.charCodeAt(0).toString(16)}`);
}

/** The mute key of a conversation as its member sees it: the other user, or the group. */
export function muteKey(type: 'oneOnOne' | 'group', id: string): string {
  return `${type}:${tokenKey(id)}`;
}

export function recipientStreamId(appId: string, uid: string): string {
  return `notifications-user:${appId}:${uid}`;
}

export interface TokenEntry {
  token: string;
  tokenType: PushTokenType;
  platform: string;
  providerId: string;
  sessionId: string;
  registeredAt: number;
}

/** One user's notification facts: what the decision reads and the API shows. */
export interface RecipientState {
  preferences: UserPreferences | null;
  mutes: Record<string, { id: string; type: 'oneOnOne' | 'group'; until: number | null }>;
  timezone: string | null;
  email: string | null;
  phno: string | null;
  tokens: Record<string, TokenEntry>;
}

type Conversation = { id: string; type: 'oneOnOne' | 'group' };

export type RecipientEvent =
  | DomainEvent<'NotificationPreferencesChanged', { uid: string; preferences: Record<string, unknown>; changedAt: number }>
  | DomainEvent<'NotificationPreferencesReset', { uid: string; resetAt: number }>
  | DomainEvent<'ConversationsMuted', { uid: string; conversations: (Conversation & { until?: number })[]; mutedAt: number }>
  | DomainEvent<'ConversationsUnmuted', { uid: string; conversations: Conversation[]; unmutedAt: number }>
  | DomainEvent<'NotificationTimezoneSet', { uid: string; timezone: string; setAt: number }>
  | DomainEvent<'ContactDetailsChanged', { uid: string; email?: string; phno?: string; changedAt: number }>
  | DomainEvent<'ContactDetailsRemoved', { uid: string; removedAt: number }>
  | DomainEvent<'PushTokenRegistered', PushTokenRegistered>
  | DomainEvent<'PushTokensRemoved', { uid: string; tokens: string[]; reason: 'unregistered' | 'invalid'; removedAt: number }>;

export type RecipientCommand =
  | { type: 'PatchPreferences'; uid: string; patch: UserPreferences; at: number }
  | { type: 'ResetPreferences'; uid: string; at: number }
  | { type: 'Mute'; uid: string; conversations: (Conversation & { until?: number })[]; at: number }
  | { type: 'Unmute'; uid: string; conversations: Conversation[]; at: number }
  | { type: 'SetTimezone'; uid: string; timezone: string; at: number }
  | { type: 'PatchContact'; uid: string; email?: string | undefined; phno?: string | undefined; at: number }
  | { type: 'RemoveContact'; uid: string; at: number }
  | { type: 'RegisterToken'; registration: PushTokenRegistered }
  | { type: 'RemoveTokens'; uid: string; tokens: string[]; reason: 'unregistered' | 'invalid'; at: number }
  /** The sessions (auth-token fingerprints) ended: their tokens go, as a logout unregisters them (ADR 0151). */
  | { type: 'EndSessions'; uid: string; sessionIds: string[]; at: number };

function decide(command: RecipientCommand, state: RecipientState): RecipientEvent[] {
  switch (command.type) {
    case 'PatchPreferences':
      return [
        {
          type: 'NotificationPreferencesChanged',
          data: { uid: command.uid, preferences: mergeDeep<Record<string, unknown>>(state.preferences ?? {}, command.patch), changedAt: command.at },
        },
      ];
    case 'ResetPreferences':
      return state.preferences === null ? [] : [{ type: 'NotificationPreferencesReset', data: { uid: command.uid, resetAt: command.at } }];
    case 'Mute':
      return [{ type: 'ConversationsMuted', data: { uid: command.uid, conversations: command.conversations, mutedAt: command.at } }];
    case 'Unmute': {
      const muted = command.conversations.filter((c) => muteKey(c.type, c.id) in state.mutes);
      return muted.length === 0 ? [] : [{ type: 'ConversationsUnmuted', data: { uid: command.uid, conversations: muted, unmutedAt: command.at } }];
    }
    case 'SetTimezone':
      return state.timezone === command.timezone ? [] : [{ type: 'NotificationTimezoneSet', data: { uid: command.uid, timezone: command.timezone, setAt: command.at } }];
    case 'PatchContact': {
      const email = command.email ?? state.email ?? undefined;
      const phno = command.phno ?? state.phno ?? undefined;
      if (email === (state.email ?? undefined) && phno === (state.phno ?? undefined)) return [];
      return [{ type: 'ContactDetailsChanged', data: { uid: command.uid, ...(email ? { email } : {}), ...(phno ? { phno } : {}), changedAt: command.at } }];
    }
    case 'RemoveContact':
      return state.email === null && state.phno === null ? [] : [{ type: 'ContactDetailsRemoved', data: { uid: command.uid, removedAt: command.at } }];
    case 'RegisterToken': {
      const r = command.registration;
      const known = state.tokens[tokenKey(r.token)];
      if (known && known.tokenType === r.tokenType && known.platform === r.platform && known.providerId === r.providerId && known.sessionId === r.sessionId) return [];
      return [{ type: 'PushTokenRegistered', data: r }];
    }
    case 'RemoveTokens': {
      const present = command.tokens.filter((t) => tokenKey(t) in state.tokens);
      return present.length === 0
        ? []
        : [{ type: 'PushTokensRemoved', data: { uid: command.uid, tokens: present, reason: command.reason, removedAt: command.at } }];
    }
    case 'EndSessions': {
      const ended = new Set(command.sessionIds);
      const tokens = Object.values(state.tokens).flatMap((entry) => (ended.has(entry.sessionId) ? [entry.token] : []));
      return tokens.length === 0 ? [] : [{ type: 'PushTokensRemoved', data: { uid: command.uid, tokens, reason: 'unregistered', removedAt: command.at } }];
    }
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${JSON.stringify(unknown)}`);
    }
  }
}

/** Shared with the read model, which folds the same events into the recipient's document. */
export function evolveRecipient(state: RecipientState, event: RecipientEvent): RecipientState {
  switch (event.type) {
    case 'NotificationPreferencesChanged':
      return { ...state, preferences: event.data.preferences };
    case 'NotificationPreferencesReset':
      return { ...state, preferences: null };
    case 'ConversationsMuted': {
      const mutes = { ...state.mutes };
      for (const c of event.data.conversations) mutes[muteKey(c.type, c.id)] = { id: c.id, type: c.type, until: c.until ?? null };
      return { ...state, mutes };
    }
    case 'ConversationsUnmuted': {
      const mutes = { ...state.mutes };
      for (const c of event.data.conversations) delete mutes[muteKey(c.type, c.id)];
      return { ...state, mutes };
    }
    case 'NotificationTimezoneSet':
      return { ...state, timezone: event.data.timezone };
    case 'ContactDetailsChanged':
      return { ...state, email: event.data.email ?? null, phno: event.data.phno ?? null };
    case 'ContactDetailsRemoved':
      return { ...state, email: null, phno: null };
    case 'PushTokenRegistered': {
      const { uid, ...entry } = event.data;
      void uid;
      return { ...state, tokens: { ...state.tokens, [tokenKey(entry.token)]: entry } };
    }
    case 'PushTokensRemoved': {
      const tokens = { ...state.tokens };
      for (const t of event.data.tokens) delete tokens[tokenKey(t)];
      return { ...state, tokens };
    }
    default: {
      const unknown: never = event;
      throw new Error(`unknown event ${JSON.stringify(unknown)}`);
    }
  }
}

export const emptyRecipient = (): RecipientState => ({ preferences: null, mutes: {}, timezone: null, email: null, phno: null, tokens: {} });

export const recipientDecider: Decider<RecipientState, RecipientCommand, RecipientEvent> = {
  initialState: emptyRecipient,
  evolve: evolveRecipient,
  decide,
  snapshotVersion: 1,
};
