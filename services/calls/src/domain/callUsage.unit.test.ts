import { describe, expect, it } from 'vitest';
import { evolveCall } from './callRecord.js';
import type { CallMessage, CallRecord } from './callRecord.js';
import { callUsage } from './callUsage.js';

const day = Date.UTC(2026, 0, 10) / 1000;

function call(sessionId: string, type: 'audio' | 'video', from: string, to: string, start: number, talk: number, extra: Partial<CallMessage> = {}): CallRecord {
  const base = { sessionId, type, receiverType: 'user' as const, ...extra };
  let record = evolveCall(null, { ...base, id: '1', sender: from, receiver: to, action: 'initiated', sentAt: start });
  record = evolveCall(record, { ...base, id: '2', sender: to, receiver: from, action: 'ongoing', sentAt: start + 5 });
  return evolveCall(record, { ...base, id: '3', sender: from, receiver: to, action: 'ended', sentAt: start + 5 + talk });
}

describe('call usage', () => {
  it('counts participant minutes by call type, recorded minutes and the peak in calls', () => {
    const calls = [
      call('a', 'audio', 'ann', 'ben', day, 120, { hasRecording: true }),
      call('b', 'video', 'cat', 'dan', day + 60, 600),
    ];
    expect(callUsage(calls, { from: day, to: day + 86_399 })).toEqual({ audio_minutes: 4, video_minutes: 20, recorded_minutes: 4, concurrent_users: 4 });
    // Only the part of a call inside the range counts.
    expect(callUsage(calls, { from: day, to: day + 65 })).toMatchObject({ audio_minutes: 2, concurrent_users: 2 });
  });

  it('counts nobody for a call nobody answered', () => {
    const rung = evolveCall(null, { id: '1', sessionId: 's', type: 'audio', sender: 'ann', receiver: 'ben', receiverType: 'user', action: 'initiated', sentAt: day });
    const unanswered = evolveCall(rung, { id: '2', sessionId: 's', type: 'audio', sender: 'ann', receiver: 'ben', receiverType: 'user', action: 'ended', sentAt: day + 30 });
    expect(unanswered.status).toBe('unanswered');
    expect(callUsage([unanswered], { from: day, to: day + 60 })).toEqual({ audio_minutes: 0, video_minutes: 0, recorded_minutes: 0, concurrent_users: 0 });
  });
});
