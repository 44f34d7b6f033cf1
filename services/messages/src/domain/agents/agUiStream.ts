/**
 * The AG-UI protocol's server-sent events, as far as a chat reply needs them: an agent streams
 * `TEXT_MESSAGE_CONTENT` deltas between `RUN_STARTED` and `RUN_FINISHED` (or `RUN_ERROR`). Pure: the
 * bytes arrive in arbitrary chunks; the decoder keeps the unfinished tail.
 */
export interface AgUiEvent {
  type: string;
  [field: string]: unknown;
}

/** Splits a text/event-stream into its events' `data` (joined lines), per the SSE rules. */
export class SseDecoder {
  private buffer = '';

  push(chunk: string): string[] {
    this.buffer += chunk.replace(/\r\n?/g, '\n');
    const payloads: string[] = [];
    let end = this.buffer.indexOf('\n\n');
    while (end !== -1) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''));
      if (data.length > 0) payloads.push(data.join('\n'));
      end = this.buffer.indexOf('\n\n');
    }
    return payloads;
  }
}

/** The reply as the events so far make it; `done` once the run finished or failed. */
export class AgentReply {
  private readonly parts: string[] = [];
  private size = 0;
  private failure: string | null = null;
  private finished = false;

  get done(): boolean {
    return this.finished || this.failure !== null;
  }

  get error(): string | null {
    return this.failure;
  }

  get text(): string {
    return this.parts.join('');
  }

  /** Characters of text so far, without joining them. */
  get length(): number {
    return this.size;
  }

  /** Takes one `data` payload; anything that is not an AG-UI event is a broken agent. */
  take(payload: string): void {
    let event: AgUiEvent;
    try {
      event = JSON.parse(payload) as AgUiEvent;
    } catch {
      this.failure = 'the agent sent an event that is not JSON';
      return;
    }
    switch (event.type) {
      case 'TEXT_MESSAGE_CONTENT':
      case 'TEXT_MESSAGE_CHUNK':
        if (typeof event['delta'] === 'string') {
          this.parts.push(event['delta']);
          this.size += event['delta'].length;
        }
        break;
      case 'RUN_FINISHED':
        this.finished = true;
        break;
      case 'RUN_ERROR':
        this.failure = typeof event['message'] === 'string' ? event['message'] : 'the agent reported an error';
        break;
      default:
        // Tool calls, state and step events carry nothing a chat message shows.
        break;
    }
  }
}

/** What an AG-UI agent is sent for one chat message (`RunAgentInput`). */
export interface RunAgentInput {
  threadId: string;
  runId: string;
  state: Record<string, unknown>;
  messages: Array<{ id: string; role: 'user' | 'assistant'; content: string }>;
  tools: Array<{ name: string; description: string; parameters: Record<string, unknown> }>;
  context: Array<{ description: string; value: string }>;
  forwardedProps: Record<string, unknown>;
}
