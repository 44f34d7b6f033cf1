import { actorOf, requestIdOf, requestedPositions } from '@chat/http';
import type { RequestHeaders } from '@chat/http';
import type { RequestContext } from '@chat/contracts';

/** Who asks, the request's id, and the writes its consistency token names (a 400 for a token we never issued). */
export function requestContextOf(req: RequestHeaders): RequestContext {
  const awaited = requestedPositions(req);
  return { actor: actorOf(req), requestId: requestIdOf(req), ...(awaited ? { awaited } : {}) };
}
