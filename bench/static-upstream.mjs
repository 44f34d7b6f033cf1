// Answers every request with one fixed JSON body: a stand-in for a service with no cost of its own,
// so what a proxy in front of it adds becomes measurable. Usage: node static-upstream.mjs <body-file>
import http from 'node:http';
import { readFileSync } from 'node:fs';

const body = readFileSync(process.argv[2]);
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
