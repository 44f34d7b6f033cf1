import type { NotificationSkipReason } from '@chat/contracts';
import type { EffectivePreferences } from './preferences.js';
import { isQuiet } from './quietHours.js';
import { muteKey } from './recipient.js';

/** What the decision needs to know of a message. */
export interface MessageFacts {
  sender: string;
  receiver: string;
  receiverType: 'user' | 'group';
  parentId?: string | undefined;
  quotedMessageId?: string | undefined;
  mentionedUids?: readonly string[] | undefined;
}

/** What the decision needs to know of one recipient. */
export interface RecipientFacts {
  uid: string;
  preferences: EffectivePreferences;
  /** `type:id` → epoch ms the mute ends, or null for "until unmuted". */
  mutes: Readonly<Record<string, number | null>>;
  timezone: string;
}

export type Decision = { notify: true } | { notify: false; reason: NotificationSkipReason };

/**
 * Whether a message notifies a recipient, and if not, CometChat's reason. The order is the
 * user's view: what they asked for this kind of message, then do-not-disturb, then the
 * conversation's mute, then quiet hours. With `bypassPreferencesForMentions`, a mention passes
 * the message preferences and the mute, never DND or quiet hours (those are about the person,
 * not the conversation).
 */
export function decide(message: MessageFacts, recipient: RecipientFacts, bypassForMentions: boolean, now: number): Decision {
  const mentioned = message.mentionedUids?.includes(recipient.uid) ?? false;
  const bypass = bypassForMentions && mentioned;
  const section = message.receiverType === 'group' ? recipient.preferences.group : recipient.preferences.oneOnOne;
  if (!bypass) {
    const [setting, reason]: [number, NotificationSkipReason] = message.parentId
      ? [section.repliesSetting, 'REPLIES_PREFERENCE']
      : message.quotedMessageId
        ? [section.quotedRepliesSetting, 'QUOTED_REPLIES_PREFERENCE']
        : [section.messagesSetting, 'MESSAGES_PREFERENCE'];
    if (setting === 1 || (setting === 3 && !mentioned)) return { notify: false, reason };
  }
  const mute = recipient.preferences.mute;
  if (mute.dndPreferenceSetting === 2) return { notify: false, reason: 'DND_PREFERENCE' };
  if (!bypass) {
    const key = message.receiverType === 'group' ? muteKey('group', message.receiver) : muteKey('oneOnOne', message.sender);
    const honoured = message.receiverType === 'group' ? mute.mutedGroupsOverride : mute.mutedOneOnOnesOverride;
    if (honoured && key in recipient.mutes) {
      const until = recipient.mutes[key];
      if (until === null || until === undefined || until > now) return { notify: false, reason: 'MUTE_PREFERENCE' };
    }
  }
  if (isQuiet(mute.schedulePreferenceSetting, now, recipient.timezone)) return { notify: false, reason: 'SCHEDULE_PREFERENCE' };
  return { notify: true };
}
