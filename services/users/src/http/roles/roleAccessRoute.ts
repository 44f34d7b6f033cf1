import { normalizeUid } from '@chat/contracts';
import type { RoleAccess } from '@chat/contracts';
import type { RequestListener } from 'node:http';

/** `internalPaths.roleAccess` as the gateway writes it: exact, lower case, no trailing slash. */
const ROLE_ACCESS_PATH = /^\/internal\/apps\/([^/?#]+)\/users\/([^/?#]+)\/access$/;

/**
 * The gateway's role look-up (`GET /internal/apps/:appId/users/:uid/access`) answered before express:
 * the gateway asks it for about every message (an acting user's rules are at most 1 s old there), and
 * the per-request middleware (metrics, request scopes, tracing, body parsing, consistency tokens, the
 * router's walk over every route) cost several times the look-up itself, which reads from memory
 * (ADR 0057). Only a found user is answered here; anything else — a path in another spelling, an id
 * that is not valid percent-encoding, no active user, a failure — goes to `api`, whose route gives the
 * same answers as before (404 `ERR_UID_NOT_FOUND`, 400, 503, 500).
 */
export function answeringRoleAccess(roleAccess: (appId: string, uid: string) => Promise<RoleAccess | null>, api: RequestListener): RequestListener {
  return (req, res) => {
    const match = req.method === 'GET' ? ROLE_ACCESS_PATH.exec(req.url ?? '') : null;
    if (!match) return void api(req, res);
    let appId: string;
    let uid: string;
    try {
      appId = decodeURIComponent(match[1]!);
      uid = normalizeUid(decodeURIComponent(match[2]!));
    } catch {
      return void api(req, res);
    }
    roleAccess(appId, uid).then(
      (access) => {
        if (!access) return void api(req, res);
        const body = JSON.stringify(access);
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      },
      () => api(req, res),
    );
  };
}
