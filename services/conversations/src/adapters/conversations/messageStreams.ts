import { ApiError, conversationEventsPageSchema, conversationEventsPath } from '@chat/contracts';
import type { EventEnvelope } from '@chat/contracts';
import type { StreamReader } from '@chat/eventsourcing';

/** Events per page asked of the messages service: a read past its bound pulls at most this many more. */
const PAGE_EVENTS = 256;
const TIMEOUT_MS = 5_000;

function unavailable(cause: unknown): ApiError {
  return new ApiError('ERR_SERVICE_UNAVAILABLE', 'The messages service did not answer with the conversation’s history; retry shortly.', {
    retryAfterSeconds: 1,
    cause: String(cause),
  });
}

/**
 * A conversation's message stream, which lives in the messages service's store, read page by page from
 * that service (`conversationEventsPath`) for time-travel reads (ADR 0033). The pages are fetched lazily,
 * so a read that stops at its bound pulls at most one page past it. Replicas are asked in turn.
 */
export class MessageStreamsClient implements StreamReader {
  private turn = 0;

  constructor(private readonly baseUrls: readonly string[]) {}

  async *streamEvents(streamId: string): AsyncGenerator<EventEnvelope> {
    const [kind, appId, ...rest] = streamId.split(':');
    if (kind !== 'messages' || !appId || rest.length === 0) throw new Error(`not a conversation's message stream: ${streamId}`);
    const conversationId = rest.join(':');
    let from: number | null = 1;
    while (from !== null) {
      const page = await this.page(appId, conversationId, from);
      yield* page.events as unknown as EventEnvelope[];
      from = page.next;
    }
  }

  private async page(appId: string, conversationId: string, from: number) {
    const base = this.baseUrls[this.turn++ % this.baseUrls.length];
    let response: Response;
    try {
      response = await fetch(`${base}${conversationEventsPath(appId, conversationId, from, PAGE_EVENTS)}`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      throw unavailable(error);
    }
    if (!response.ok) throw unavailable(`status ${response.status}`);
    return conversationEventsPageSchema.parse(await response.json());
  }
}
