import { internalHeaders } from '@chat/contracts';
import type { IncomingMessage } from 'node:http';

/** Who the gateway says is connecting: it resolved the auth token (ADR 0069); realtime trusts only it. */
export interface ConnectingUser {
  appId: string;
  uid: string;
  tokenId: string;
  /** The `since` cursor (query), or SSE's `Last-Event-ID`. */
  since: string | undefined;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** Null when the gateway's headers are missing (a request that did not come through it). */
export function connectingUser(req: IncomingMessage): ConnectingUser | null {
  const appId = header(req, internalHeaders.appId);
  const uid = header(req, internalHeaders.onBehalfOf);
  const tokenId = header(req, internalHeaders.authTokenId);
  if (!appId || !uid || !tokenId) return null;
  const url = new URL(req.url ?? '/', 'http://realtime');
  const since = url.searchParams.get('since') ?? header(req, 'last-event-id');
  return { appId, uid, tokenId, since: since ?? undefined };
}

export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
