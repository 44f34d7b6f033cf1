import { describe, expect, it } from 'vitest';
import { AgentReply, SseDecoder } from './agUiStream.js';

describe('AG-UI over server-sent events', () => {
  it('decodes events split across chunks and lines, and assembles the streamed text', () => {
    const decoder = new SseDecoder();
    const reply = new AgentReply();
    const stream = [
      'data: {"type":"RUN_STARTED"}\r\n\r\nda',
      'ta: {"type":"TEXT_MESSAGE_CONTENT","delta":"Hel"}\n\n: a comment\n\ndata: {"type":"TEXT_MES',
      'SAGE_CONTENT","delta":"lo"}\n\nevent: x\ndata: {"type":"RUN_FINISHED"}\n\n',
    ];
    for (const chunk of stream) for (const payload of decoder.push(chunk)) reply.take(payload);
    expect(reply).toMatchObject({ done: true, error: null, text: 'Hello' });
  });

  it('a RUN_ERROR or a payload that is not JSON ends the run as failed', () => {
    const failed = new AgentReply();
    failed.take('{"type":"RUN_ERROR","message":"quota exceeded"}');
    expect(failed).toMatchObject({ done: true, error: 'quota exceeded' });
    const broken = new AgentReply();
    broken.take('not json');
    expect(broken.error).toMatch(/not JSON/);
  });
});
