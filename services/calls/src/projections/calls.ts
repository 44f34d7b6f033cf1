import { callActions, callModes } from '@chat/contracts';
import type { EventOf, MessageSent } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { evolveCall } from '../domain/callRecord.js';
import type { CallAction, CallMessage, CallMode, CallRecord, Transcription } from '../domain/callRecord.js';

/** A call record as stored, with the fields the list filters query kept beside it. */
export interface CallDoc extends CallRecord {
  appId: string;
  participantsCount: number;
  hasTranscription: boolean;
}

/** The only event a call record is folded from: a call message is never edited into another call. */
export const callEventTypes = ['MessageSent'] as const;
type Handled = EventOf<(typeof callEventTypes)[number]>;

export function callDocId(appId: string, sessionId: string): string {
  return `${appId}:${sessionId}`;
}

function isTranscription(value: unknown): value is Transcription {
  if (typeof value !== 'object' || value === null) return false;
  const t = value as Record<string, unknown>;
  return typeof t['tid'] === 'string' && typeof t['startTime'] === 'number' && typeof t['endTime'] === 'number' && typeof t['transcriptUrl'] === 'string';
}

/** What a sent message says about a call; null for any other message (checked on send by the messages service). */
export function callMessageOf(m: MessageSent): CallMessage | null {
  if (m.category !== 'call' || (m.type !== 'audio' && m.type !== 'video')) return null;
  const { action, sessionId, mode, transcriptions, hasRecording } = m.data;
  if (typeof sessionId !== 'string' || !(callActions as readonly unknown[]).includes(action)) return null;
  return {
    id: m.id,
    sender: m.sender,
    receiver: m.receiver,
    receiverType: m.receiverType,
    type: m.type,
    action: action as CallAction,
    sessionId,
    ...((callModes as readonly unknown[]).includes(mode) ? { mode: mode as CallMode } : {}),
    sentAt: m.sentAt,
    ...(Array.isArray(transcriptions) ? { transcriptions: transcriptions.filter(isTranscription) } : {}),
    ...(hasRecording === true ? { hasRecording: true } : {}),
  };
}

/** Call records from the call messages of the messages service's stream, sent or imported. */
export const callsProjection: Projection<CallDoc, Handled> = {
  name: 'calls',
  eventTypes: callEventTypes,
  documentIds(event) {
    const call = event.type === 'MessageSent' ? callMessageOf(event.data) : null;
    return call ? [callDocId(event.appId, call.sessionId)] : [];
  },
  evolve(doc, event) {
    const call = event.type === 'MessageSent' ? callMessageOf(event.data) : null;
    if (!call) return doc;
    const record = evolveCall(doc, call);
    return {
      ...record,
      appId: event.appId,
      participantsCount: record.participants.filter((p) => p.joinedAt !== undefined).length,
      hasTranscription: record.transcriptions.length > 0,
    };
  },
};
