import { AgentReply, SseDecoder } from '../domain/agUiStream.js';
import type { RunAgentInput } from '../domain/agUiStream.js';

export interface AgentCall {
  url: string;
  headers: Record<string, string>;
  input: RunAgentInput;
  /** The whole run, answer streamed to its end, must fit in this. */
  timeoutMs: number;
}

/** Why an agent gave no reply: shown to the conversation as an action message. */
export class AgentFailure extends Error {
  override readonly name = 'AgentFailure';
}

/**
 * Runs an AG-UI agent once: POSTs the `RunAgentInput`, reads the server-sent events to the end of
 * the run, and returns the streamed text. Every way it can fail (unreachable, non-2xx, a `RUN_ERROR`,
 * a stream that ends early or outlasts the timeout) becomes an `AgentFailure`, never a hang.
 */
export async function runAgUiAgent(call: AgentCall): Promise<string> {
  const signal = AbortSignal.timeout(call.timeoutMs);
  let response: Response;
  try {
    response = await fetch(call.url, {
      method: 'POST',
      headers: { ...call.headers, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(call.input),
      signal,
    });
  } catch (error) {
    throw failureOf(error, call.timeoutMs);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    throw new AgentFailure(`the agent answered HTTP ${response.status}`);
  }
  const decoder = new SseDecoder();
  const reply = new AgentReply();
  const text = new TextDecoder();
  // Leaving the loop early (the run is over) cancels the rest of the body.
  const body = response.body as unknown as AsyncIterable<Uint8Array>;
  try {
    for await (const chunk of body) {
      for (const payload of decoder.push(text.decode(chunk, { stream: true }))) reply.take(payload);
      if (reply.done) break;
    }
  } catch (error) {
    throw failureOf(error, call.timeoutMs);
  }
  if (reply.error !== null) throw new AgentFailure(reply.error);
  if (!reply.done) throw new AgentFailure('the agent ended its stream before finishing the run');
  if (reply.text.trim() === '') throw new AgentFailure('the agent finished without a reply');
  return reply.text;
}

function failureOf(error: unknown, timeoutMs: number): AgentFailure {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return new AgentFailure(`the agent did not finish within ${Math.round(timeoutMs / 1000)} s`);
  }
  return new AgentFailure(`the agent could not be reached (${error instanceof Error ? error.message : String(error)})`);
}
