import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundHttp, RefusedUrl, readAtMost } from './outboundHttp.js';
import { privateAddressPolicy } from './urlGuard.js';
import type { Resolver } from './urlGuard.js';

let server: Server;
let base = '';
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    hits.push(req.url ?? '');
    req.resume();
    if (req.url === '/redirect') {
      res.writeHead(302, { location: `${base}/target` }).end('moved');
    } else if (req.url === '/flood') {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    } else if (req.url === '/drip') {
      res.writeHead(200);
      const timer = setInterval(() => res.write('.'), 20);
      res.on('close', () => clearInterval(timer));
    } else if (req.url === '/cut') {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial', () => res.destroy());
    } else if (req.url === '/wide') {
      res.writeHead(200).end('é'.repeat(300));
    } else {
      res.writeHead(200).end(`ok ${req.url}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const loopbackOnly = privateAddressPolicy('127.0.0.0/8');

describe('OutboundHttp', () => {
  it('posts and answers with the status and a prefix of the answer', async () => {
    const http = new OutboundHttp({ policy: loopbackOnly, timeoutMs: 2_000 });
    expect(await http.post(`${base}/hook`, {}, '{}')).toMatchObject({ status: 200, responsePrefix: 'ok /hook' });
    http.close();
  });

  it('never follows a redirect: the 3xx is the answer', async () => {
    const http = new OutboundHttp({ policy: loopbackOnly, timeoutMs: 2_000 });
    hits.length = 0;
    expect(await http.post(`${base}/redirect`, {}, '{}')).toMatchObject({ status: 302, responsePrefix: 'moved' });
    expect(hits).toEqual(['/redirect']);
    http.close();
  });

  it('reads an endless answer only up to its cap', async () => {
    const http = new OutboundHttp({ policy: loopbackOnly, timeoutMs: 5_000, maxAnswerBytes: 100_000 });
    const started = performance.now();
    const result = await http.post(`${base}/flood`, {}, '{}');
    expect(result).toMatchObject({ status: 200 });
    expect(result.responsePrefix).toBe('a'.repeat(256));
    expect(performance.now() - started).toBeLessThan(2_000);
    http.close();
  });

  it('gives up on an answer that trickles past the deadline', async () => {
    const http = new OutboundHttp({ policy: loopbackOnly, timeoutMs: 300 });
    const result = await http.post(`${base}/drip`, {}, '{}');
    expect(result).toMatchObject({ status: 200, error: 'no answer within 300 ms' });
    expect(result.refused).toBeUndefined();
    expect(result.latencyMs).toBeLessThan(1_500);
    http.close();
  });

  it('reports an answer the receiver cut short as an error with its status', async () => {
    const http = new OutboundHttp({ policy: loopbackOnly, timeoutMs: 2_000 });
    const result = await http.post(`${base}/cut`, {}, '{}');
    expect(result.status).toBe(200);
    expect(result.error).toBeTruthy();
    expect(result.responsePrefix).toBe('');
    http.close();
  });

  it('keeps the first 256 characters of an answer, however many bytes each takes', async () => {
    const http = new OutboundHttp({ policy: loopbackOnly, timeoutMs: 2_000 });
    const first = await http.post(`${base}/wide`, {}, '{}');
    // The second call goes over the kept socket and the kept URL: the same answer.
    const second = await http.post(`${base}/wide`, {}, '{}');
    expect(first).toMatchObject({ status: 200, responsePrefix: 'é'.repeat(256) });
    expect(second).toMatchObject({ status: 200, responsePrefix: 'é'.repeat(256) });
    http.close();
  });

  it('refuses an internal address literal before connecting', async () => {
    const http = new OutboundHttp({ policy: privateAddressPolicy('false'), timeoutMs: 2_000 });
    hits.length = 0;
    const result = await http.post(`${base}/hook`, {}, '{}');
    expect(result.status).toBeUndefined();
    expect(result.error).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(result.refused).toBe(true);
    expect(hits).toEqual([]);
    // Refused again from the kept check, still before connecting.
    expect(await http.post(`${base}/hook`, {}, '{}')).toMatchObject({ refused: true });
    expect(hits).toEqual([]);
    await expect(http.open('http://[::ffff:a9fe:a9fe]/', {}, '', AbortSignal.timeout(1_000))).rejects.toBeInstanceOf(RefusedUrl);
    http.close();
  });

  it('refuses a name that resolves to an internal address, at connect time', async () => {
    const port = (server.address() as AddressInfo).port;
    const resolve: Resolver = (_hostname, _options, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]);
    hits.length = 0;
    const guarded = new OutboundHttp({ policy: privateAddressPolicy('false'), timeoutMs: 2_000, resolve });
    await expect(guarded.open(`http://rebound.example:${port}/hook`, {}, '', AbortSignal.timeout(1_000))).rejects.toThrow(
      /rebound\.example resolves to 127\.0\.0\.1 is a loopback address/,
    );
    expect(hits).toEqual([]);
    // The same name is reached once the deployment allows loopback: the lookup is what refused it.
    const allowed = new OutboundHttp({ policy: loopbackOnly, timeoutMs: 2_000, resolve });
    expect(await allowed.post(`http://rebound.example:${port}/hook`, {}, '{}')).toMatchObject({ status: 200 });
    guarded.close();
    allowed.close();
  });
});

describe('readAtMost', () => {
  it('stops at the cap and says it cut', async () => {
    async function* chunks() {
      for (let i = 0; i < 1_000; i++) yield Buffer.alloc(1_000, 'x');
    }
    const { bytes, cut } = await readAtMost(chunks(), 2_500);
    expect(bytes.length).toBe(2_500);
    expect(cut).toBe(true);
    expect(await readAtMost(chunks(), 10_000_000)).toMatchObject({ cut: false });
  });
});
