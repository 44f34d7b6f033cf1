import { RefusedUrl, usableTenantHeaders } from '@chat/delivery';
import type { OutboundHttp } from '@chat/delivery';
import { AgentReply, SseDecoder } from '../../domain/agents/agUiStream.js';
import type { RunAgentInput } from '../../domain/agents/agUiStream.js';

export interface AgentCall {
  url: string;
  headers: Record<string, string>;
  input: RunAgentInput;
  /** The whole run, answer streamed to its end, must fit in this. */
  timeoutMs: number;
}

/** What one run may cost this process, whatever the agent sends (ADR 0038). */
export interface AgentLimits {
  /** The longest gap between two pieces of the stream. */
  idleMs: number;
  /** Bytes of event stream read in all. */
  maxStreamBytes: number;
  /** Characters of reply text: what a chat message may carry (CometChat's 64 KB message body). */
  maxReplyChars: number;
}

export const DEFAULT_AGENT_LIMITS: Readonly<AgentLimits> = Object.freeze({ idleMs: 10_000, maxStreamBytes: 1024 * 1024, maxReplyChars: 64 * 1024 });

/** Why an agent gave no reply: shown to the conversation as an action message. */
export class AgentFailure extends Error {
  override readonly name = 'AgentFailure';
}

/**
 * Runs an AG-UI agent once through the tenant URL guard: POSTs the `RunAgentInput`, reads the
 * server-sent events to the end of the run, and returns the streamed text. Every way it can fail
 * (refused address, unreachable, non-2xx or a redirect, a `RUN_ERROR`, a stream that ends early,
 * outlasts the timeout, goes quiet, or grows past its caps) aborts the request and becomes an
 * `AgentFailure`, never a hang or an unbounded buffer.
 */
export async function runAgUiAgent(http: OutboundHttp, call: AgentCall, limits: Readonly<AgentLimits> = DEFAULT_AGENT_LIMITS): Promise<string> {
  const run = new AbortController();
  const seconds = (ms: number) => Math.round(ms / 1000);
  const deadline = setTimeout(() => run.abort(new AgentFailure(`the agent did not finish within ${seconds(call.timeoutMs)} s`)), call.timeoutMs);
  let idle: NodeJS.Timeout | undefined;
  const heard = () => {
    clearTimeout(idle);
    idle = setTimeout(() => run.abort(new AgentFailure(`the agent sent nothing for ${seconds(limits.idleMs)} s`)), limits.idleMs);
  };
  try {
    heard();
    let response;
    try {
      // Headers saved before they were checked may still hold refused names: those are left out.
      const headers = { ...usableTenantHeaders(call.headers), 'content-type': 'application/json', accept: 'text/event-stream' };
      response = await http.open(call.url, headers, JSON.stringify(call.input), run.signal);
    } catch (error) {
      throw failureOf(error, run.signal);
    }
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      response.destroy();
      throw new AgentFailure(`the agent answered HTTP ${status}`);
    }
    const decoder = new SseDecoder();
    const reply = new AgentReply();
    const text = new TextDecoder();
    let read = 0;
    // Leaving the loop (the run is over, or a cap is reached) destroys the rest of the answer.
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        heard();
        read += chunk.byteLength;
        if (read > limits.maxStreamBytes) throw new AgentFailure(`the agent sent more than ${limits.maxStreamBytes} bytes`);
        for (const payload of decoder.push(text.decode(chunk, { stream: true }))) reply.take(payload);
        if (reply.length > limits.maxReplyChars) throw new AgentFailure(`the agent's reply is longer than ${limits.maxReplyChars} characters`);
        if (reply.done) break;
      }
    } catch (error) {
      throw failureOf(error, run.signal);
    }
    if (reply.error !== null) throw new AgentFailure(reply.error);
    if (!reply.done) throw new AgentFailure('the agent ended its stream before finishing the run');
    if (reply.text.trim() === '') throw new AgentFailure('the agent finished without a reply');
    return reply.text;
  } finally {
    clearTimeout(deadline);
    clearTimeout(idle);
  }
}

function failureOf(error: unknown, signal: AbortSignal): AgentFailure {
  if (error instanceof AgentFailure) return error;
  if (signal.aborted && signal.reason instanceof AgentFailure) return signal.reason;
  if (error instanceof RefusedUrl) return new AgentFailure(`the agent's address is not allowed (${error.message})`);
  return new AgentFailure(`the agent could not be reached (${error instanceof Error ? error.message : String(error)})`);
}
