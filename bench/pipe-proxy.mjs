// The ceiling for any Node gateway on this machine: a node:http server that pipes each request to
// one upstream over a keep-alive agent and does nothing else. Usage: node pipe-proxy.mjs <port|0> <upstream-url>; reports its port over IPC.
import http from 'node:http';

const [port, upstream] = process.argv.slice(2);
const target = new URL(upstream);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

const server = http.createServer((req, res) => {
    const forward = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
      },
    );
    forward.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(forward);
});
server.listen(Number(port), '127.0.0.1', () => process.send?.({ port: server.address().port }));
