/**
 * A call as CometChat's calls API shows it, folded from the call's messages (`category: "call"`):
 * `initiated` opens it, `ongoing` marks who joined, `ended` closes it, and `unanswered`, `rejected`,
 * `cancelled` or `busy` close it without anyone talking. Pure: times are the messages' `sentAt`.
 */
import type { CallAction, CallMode } from '@chat/contracts';

export type { CallAction, CallMode };

export interface CallParticipant {
  uid: string;
  joinedAt?: number;
  leftAt?: number;
}

export interface Transcription {
  tid: string;
  startTime: number;
  endTime: number;
  transcriptUrl: string;
}

export interface CallRecord {
  sessionId: string;
  type: 'audio' | 'video';
  mode: CallMode;
  initiator: string;
  receiver: string;
  receiverType: 'user' | 'group';
  /** The id of the message that opened the call. */
  mid: string;
  /** Every uid with a message in the call, or named as its receiver (one-on-one). */
  uids: string[];
  status: CallAction;
  initiatedAt: number;
  startedAt?: number;
  endedAt?: number;
  participants: CallParticipant[];
  transcriptions: Transcription[];
  hasRecording: boolean;
}

/** What one call message says about its call. */
export interface CallMessage {
  id: string;
  sender: string;
  receiver: string;
  receiverType: 'user' | 'group';
  type: 'audio' | 'video';
  action: CallAction;
  sessionId: string;
  mode?: CallMode;
  sentAt: number;
  transcriptions?: Transcription[];
  hasRecording?: boolean;
}

const CLOSING: readonly CallAction[] = ['ended', 'unanswered', 'rejected', 'cancelled', 'busy'];

function withParticipant(participants: CallParticipant[], uid: string, change: (p: CallParticipant) => CallParticipant): CallParticipant[] {
  const found = participants.some((p) => p.uid === uid);
  return found ? participants.map((p) => (p.uid === uid ? change(p) : p)) : [...participants, change({ uid })];
}

function opened(m: CallMessage): CallRecord {
  return {
    sessionId: m.sessionId,
    type: m.type,
    mode: m.mode ?? 'call',
    initiator: m.sender,
    receiver: m.receiver,
    receiverType: m.receiverType,
    mid: m.id,
    uids: m.receiverType === 'user' ? [m.sender, m.receiver] : [m.sender],
    status: 'initiated',
    initiatedAt: m.sentAt,
    participants: [{ uid: m.sender }, ...(m.receiverType === 'user' ? [{ uid: m.receiver }] : [])],
    transcriptions: [],
    hasRecording: false,
  };
}

/** The record after one more of its messages; messages arrive in their conversation's order. */
export function evolveCall(record: CallRecord | null, m: CallMessage): CallRecord {
  // A call whose first message we did not see opens with what this one says.
  let call = record ?? opened(m);
  if (!call.uids.includes(m.sender)) call = { ...call, uids: [...call.uids, m.sender] };
  const transcriptions = [...call.transcriptions];
  for (const t of m.transcriptions ?? []) if (!transcriptions.some((known) => known.tid === t.tid)) transcriptions.push(t);
  call = { ...call, transcriptions, hasRecording: call.hasRecording || m.hasRecording === true };
  if (CLOSING.includes(call.status)) return call;
  switch (m.action) {
    case 'initiated':
      return call;
    case 'ongoing': {
      // Joining a one-on-one call means both ends are in it; in a group only the sender joined.
      const joining = call.receiverType === 'user' ? [call.initiator, call.receiver] : [m.sender];
      let participants = call.participants;
      for (const uid of joining) participants = withParticipant(participants, uid, (p) => (p.joinedAt === undefined ? { ...p, joinedAt: m.sentAt } : p));
      return { ...call, status: 'ongoing', startedAt: call.startedAt ?? m.sentAt, participants };
    }
    case 'ended': {
      const participants = call.participants.map((p) => (p.joinedAt !== undefined && p.leftAt === undefined ? { ...p, leftAt: m.sentAt } : p));
      return { ...call, status: call.startedAt === undefined ? 'unanswered' : 'ended', endedAt: m.sentAt, participants };
    }
    case 'unanswered':
    case 'rejected':
    case 'cancelled':
    case 'busy':
      return { ...call, status: m.action, endedAt: m.sentAt };
    default: {
      const unreachable: never = m.action;
      throw new Error(`unknown call action ${String(unreachable)}`);
    }
  }
}

function minutes(seconds: number): number {
  return seconds / 60;
}

function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60].map((n) => String(n).padStart(2, '0')).join(':');
}

/** The call in CometChat's shape (`GET /calls`, `GET /calls/{sessionId}`). */
export function callView(call: CallRecord, detailed = false): Record<string, unknown> {
  const duration = call.startedAt !== undefined && call.endedAt !== undefined ? call.endedAt - call.startedAt : 0;
  const media = (seconds: number) => ({
    totalAudioMinutes: call.type === 'audio' ? minutes(seconds) : 0,
    totalVideoMinutes: call.type === 'video' ? minutes(seconds) : 0,
  });
  const participants = call.participants.map((p) => {
    const joined = p.joinedAt !== undefined;
    const seconds = joined ? (p.leftAt ?? call.endedAt ?? p.joinedAt ?? 0) - (p.joinedAt ?? 0) : 0;
    return {
      uid: p.uid,
      ...media(seconds),
      totalDuration: minutes(seconds),
      isJoined: joined,
      state: joined ? (p.leftAt !== undefined ? 'ended' : 'ongoing') : call.status === 'ongoing' ? 'initiated' : call.status,
      ...(joined ? { joinedAt: p.joinedAt, mid: call.mid } : {}),
      ...(p.leftAt !== undefined ? { leftAt: p.leftAt } : {}),
    };
  });
  return {
    sessionId: call.sessionId,
    ...media(duration),
    totalDuration: clock(duration),
    ...(detailed ? { metaData: [] } : {}),
    hasRecording: call.hasRecording,
    hasTranscription: call.transcriptions.length > 0,
    initiatedAt: call.initiatedAt,
    initiator: call.initiator,
    mode: call.mode,
    receiver: call.receiver,
    receiverType: call.receiverType,
    status: call.status,
    ...(detailed ? { tags: [] } : {}),
    totalDurationInMinutes: minutes(duration),
    totalParticipants: participants.filter((p) => p.isJoined).length,
    type: call.type,
    mid: call.mid,
    ...(call.startedAt !== undefined ? { startedAt: call.startedAt } : {}),
    ...(call.endedAt !== undefined ? { endedAt: call.endedAt } : {}),
    participants,
  };
}

/** A stored transcription as CometChat lists it. */
export function transcriptionView(call: CallRecord, t: Transcription): Record<string, unknown> {
  return {
    roomName: call.sessionId,
    mid: call.mid,
    tid: t.tid,
    startTime: t.startTime,
    endTime: t.endTime,
    transcriptDate: new Date(t.startTime * 1000).toISOString(),
    transcriptUrl: t.transcriptUrl,
  };
}
