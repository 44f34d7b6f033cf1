import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AgentRun {
  headers: IncomingHttpHeaders;
  input: { threadId: string; runId: string; messages: Array<{ id: string; role: string; content: string }>; tools: unknown[]; forwardedProps: Record<string, unknown> };
}

/**
 * A local AG-UI agent on loopback, written from the protocol's event list: it takes a POSTed
 * `RunAgentInput` and streams its answer as server-sent events, a few characters per event with a
 * pause between them. `hang` starts the run and never finishes it; `fail` streams a `RUN_ERROR`.
 */
export class AgUiAgent {
  readonly runs: AgentRun[] = [];
  private server: Server | undefined;
  private readonly open = new Set<ServerResponse>();

  constructor(
    private readonly answer: (question: string) => string,
    private readonly mode: 'answer' | 'hang' | 'fail' = 'answer',
  ) {}

  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => void this.run(req.headers, Buffer.concat(chunks).toString('utf8'), res));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/agent`;
    return this;
  }

  private async run(headers: IncomingHttpHeaders, body: string, res: ServerResponse): Promise<void> {
    const input = JSON.parse(body) as AgentRun['input'];
    this.runs.push({ headers, input });
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (event: Record<string, unknown>) => res.write(`data: ${JSON.stringify(event)}\n\n`);
    const { threadId, runId } = input;
    send({ type: 'RUN_STARTED', threadId, runId });
    if (this.mode === 'hang') return;
    if (this.mode === 'fail') {
      send({ type: 'RUN_ERROR', message: 'the model is unavailable' });
      res.end();
      return;
    }
    const messageId = `reply-${runId}`;
    send({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' });
    const text = this.answer(input.messages.at(-1)?.content ?? '');
    for (let at = 0; at < text.length; at += 4) {
      send({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: text.slice(at, at + 4) });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    send({ type: 'TEXT_MESSAGE_END', messageId });
    send({ type: 'RUN_FINISHED', threadId, runId });
    res.end();
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
