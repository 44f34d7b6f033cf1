import { clientFrameSchemas } from '@chat/contracts';
import { z } from 'zod';

/** A typing notice as it crosses replicas (ADR 0077): who typed to which conversation. */
export interface TypingNotice {
  appId: string;
  type: 'typing_started' | 'typing_ended';
  sender: string;
  receiver: string;
  receiverType: 'user' | 'group';
}

const typingFrameSchema = z.discriminatedUnion('type', [clientFrameSchemas.typing_started, clientFrameSchemas.typing_ended]);

export type TypingVerdict = { ok: true; notice: TypingNotice } | { ok: false; code: string; message: string };

export interface WriteAccess {
  /** Whether `uid` is a user of the app (a one-on-one conversation with it may be written to). */
  userExists(appId: string, uid: string): Promise<boolean>;
  /** Whether `uid` is a member of the group (realtime's membership index of connected users). */
  isMember(appId: string, guid: string, uid: string): boolean;
}

/**
 * Whether `sender` may tell this conversation it is typing: the frame must match the contract's client
 * frame; one-on-one to another user of the app that exists; a group only as a member of it.
 */
export async function authorizeTyping(appId: string, sender: string, frame: unknown, access: WriteAccess): Promise<TypingVerdict> {
  const parsed = typingFrameSchema.safeParse(frame);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join('.') || 'type';
    return { ok: false, code: 'ERR_BAD_FRAME', message: `The typing frame's "${field}" is invalid: ${parsed.error.issues[0]?.message ?? 'bad frame'}.` };
  }
  const { type, receiver, receiverType } = parsed.data;
  const notice: TypingNotice = { appId, type, sender, receiver, receiverType };
  if (receiverType === 'group') {
    return access.isMember(appId, receiver, sender) ? { ok: true, notice } : { ok: false, code: 'ERR_GROUP_NOT_JOINED', message: `You are not a member of the group "${receiver}".` };
  }
  if (receiver === sender) return { ok: false, code: 'ERR_BAD_FRAME', message: 'The typing frame\'s "receiver" is the sender itself.' };
  return (await access.userExists(appId, receiver)) ? { ok: true, notice } : { ok: false, code: 'ERR_UID_NOT_FOUND', message: `The user "${receiver}" does not exist.` };
}

/** Who receives a notice among the users connected here: the peer, or the group's members but the sender. */
export function typingRecipients(notice: TypingNotice, membersOf: (appId: string, guid: string) => ReadonlySet<string>): string[] {
  if (notice.receiverType === 'user') return [notice.receiver];
  return [...membersOf(notice.appId, notice.receiver)].filter((uid) => uid !== notice.sender);
}

export function typingFrameText(notice: TypingNotice): string {
  return JSON.stringify({ type: notice.type, data: { sender: notice.sender, receiver: notice.receiver, receiverType: notice.receiverType } });
}
