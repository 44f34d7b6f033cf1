import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
/**
 * A real HTTP receiver on loopback: records every request, answers with the statuses it is told
 * (then 200), and can go down (connections refused) and come back on the same port.
 */
export class WebhookReceiver {
    received = [];
    /** Statuses to answer next, one per request; empty: 200. */
    script = [];
    server;
    port = 0;
    get url() {
        return `http://127.0.0.1:${this.port}/hook`;
    }
    async start() {
        this.server = createServer((req, res) => {
            const chunks = [];
            req.on('data', (chunk) => chunks.push(chunk));
            req.on('end', () => {
                const body = Buffer.concat(chunks).toString('utf8');
                this.received.push({ headers: req.headers, body, json: JSON.parse(body), receivedAt: Date.now() });
                res.writeHead(this.script.shift() ?? 200, { 'content-type': 'text/plain' });
                res.end('ok');
            });
        });
        await new Promise((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
        this.port = this.server.address().port;
        return this;
    }
    /** Down: the port refuses connections until `start()` again. */
    async stop() {
        const server = this.server;
        this.server = undefined;
        if (!server)
            return;
        server.closeAllConnections();
        await new Promise((resolve) => server.close(() => resolve()));
    }
    ofTrigger(trigger) {
        return this.received.filter((r) => r.json.trigger === trigger);
    }
}
/**
 * Verifies a request the way the README tells receivers to (Standard Webhooks), written here from
 * the specification rather than with the platform's own signing code: HMAC-SHA256 keyed with the
 * secret's base64 part, over `id.timestamp.body`, compared with each `v1,` signature in the header.
 */
export function signatureValid(request, secret) {
    const id = request.headers['webhook-id'];
    const timestamp = request.headers['webhook-timestamp'];
    const header = request.headers['webhook-signature'];
    if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof header !== 'string')
        return false;
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300)
        return false;
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest();
    return header.split(' ').some((candidate) => {
        const [version, signature] = candidate.split(',');
        const given = Buffer.from(signature ?? '', 'base64');
        return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}
//# sourceMappingURL=webhookReceiver.js.map