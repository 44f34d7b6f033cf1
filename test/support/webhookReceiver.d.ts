import type { IncomingHttpHeaders } from 'node:http';
export interface ReceivedWebhook {
    headers: IncomingHttpHeaders;
    body: string;
    json: {
        trigger: string;
        data: Record<string, any>;
        appId: string;
        region: string;
        webhook: string;
    };
    receivedAt: number;
}
/**
 * A real HTTP receiver on loopback: records every request, answers with the statuses it is told
 * (then 200), and can go down (connections refused) and come back on the same port.
 */
export declare class WebhookReceiver {
    readonly received: ReceivedWebhook[];
    /** Statuses to answer next, one per request; empty: 200. */
    readonly script: number[];
    private server;
    private port;
    get url(): string;
    start(): Promise<this>;
    /** Down: the port refuses connections until `start()` again. */
    stop(): Promise<void>;
    ofTrigger(trigger: string): ReceivedWebhook[];
}
/**
 * Verifies a request the way the README tells receivers to (Standard Webhooks), written here from
 * the specification rather than with the platform's own signing code: HMAC-SHA256 keyed with the
 * secret's base64 part, over `id.timestamp.body`, compared with each `v1,` signature in the header.
 */
export declare function signatureValid(request: ReceivedWebhook, secret: string): boolean;
//# sourceMappingURL=webhookReceiver.d.ts.map