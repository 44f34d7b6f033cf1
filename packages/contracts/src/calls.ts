import type { EventEnvelope } from './envelope.js';

/**
 * What a call message (`category: "call"`) says happened in its call, and the call's mode: checked by
 * the messages service when a call message is sent or imported, and folded into call records by the
 * calls service (ADR 0064). One list for both, so a send never accepts an action the calls fold refuses.
 */
export const callActions = ['initiated', 'ongoing', 'ended', 'unanswered', 'rejected', 'cancelled', 'busy'] as const;
export type CallAction = (typeof callActions)[number];
export const callModes = ['call', 'meet', 'presenter'] as const;
export type CallMode = (typeof callModes)[number];

/** A sent or imported call message: what the calls service folds into its call records. */
export function isCallMessageEvent(event: Pick<EventEnvelope, 'type' | 'data'>): boolean {
  return event.type === 'MessageSent' && event.data['category'] === 'call';
}
