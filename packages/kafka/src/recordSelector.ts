import { eventHeaderNames } from '@chat/contracts';
import type { KafkaMessage } from 'kafkajs';
import { headerText } from './operatorTools.js';

/** What a record says of itself without its value being read: the producer's headers and timestamp. */
export interface RecordHeaders {
  topic: string;
  /** The event type (absent on a record whose producer did not set the header). */
  type: string | undefined;
  appId: string | undefined;
  /** The actor's key id (absent on records published before producers set it). */
  keyId: string | undefined;
  /** A send's message category (absent on other events and on sends published before producers set it). */
  category?: string | undefined;
  /**
   * The record's timestamp (epoch ms): when the producer sent it, which is after its event occurred
   * (the outbox publishes committed events), so a fence at this time covers the event's time too.
   */
  timestamp: number;
}

/**
 * Which records of a partition's batch the handler needs, judged from headers alone (ADR 0044): true
 * keeps a record, false skips it undecoded (its offset is committed with the rest). A record it cannot
 * judge (a header missing) must be kept. It may wait (a fence) and may throw: a throw is an outage, and
 * the batch is retried like a failed handler.
 */
export type RecordSelector = (records: readonly RecordHeaders[]) => readonly boolean[] | Promise<readonly boolean[]>;

export function recordHeaders(topic: string, message: KafkaMessage): RecordHeaders {
  const sent = Number(message.timestamp);
  return {
    topic,
    type: headerText(message.headers, eventHeaderNames.type),
    appId: headerText(message.headers, eventHeaderNames.appId),
    keyId: headerText(message.headers, eventHeaderNames.keyId),
    category: headerText(message.headers, eventHeaderNames.category),
    // Without a readable timestamp: it is on the topic now, so it was sent before now.
    timestamp: Number.isFinite(sent) && sent > 0 ? sent : Date.now(),
  };
}
