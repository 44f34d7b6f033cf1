import { APP_SYSTEM, ApiError, limitDenial } from '@chat/contracts';
import { actorOf, roleLimitsOf } from '@chat/http';
import type { HotRequest, HotRoute, RequestHeaders } from '@chat/http';
import type { ApiObject } from '../app/conversationLog.js';
import type { MessagesApp } from '../app/messages.js';
import { requestContextOf } from './requestContext.js';
import { parseSendBody } from './schemas.js';

/**
 * The acting user's role may allow some receiver types, categories, types or MIME types only, and may
 * not start calls (`initiateCall`, `u.initiateCall`) (README, access rules).
 */
function refuseBeyondRoleLimits(req: RequestHeaders, operationId: string, input: ReturnType<typeof parseSendBody>): void {
  const limits = roleLimitsOf(req);
  if (!limits) return;
  const attachments = input.data['attachments'];
  const mimeTypes = Array.isArray(attachments)
    ? attachments.flatMap((attachment: unknown) => {
        const mimeType = (attachment as { mimeType?: unknown } | null)?.mimeType;
        return typeof mimeType === 'string' ? [mimeType] : [];
      })
    : [];
  const denial = limitDenial(operationId, limits, {
    receiverType: input.receiverType,
    category: input.category,
    ...(input.category === 'message' ? { messageType: input.type } : { customType: input.type }),
    mimeTypes,
    initiatesCall: input.category === 'call' && input.data['action'] === 'initiated',
  });
  if (denial) throw new ApiError('ERR_PERMISSION_DENIED', denial);
}

/** A send (plain, bot or thread); `from` null: the app itself sends, as `app_system` (never a user who happens to have that uid). */
export async function sendAs(app: MessagesApp, req: HotRequest, from: string | null, parentId?: string): Promise<ApiObject> {
  const context = requestContextOf(req);
  const byApp = from === null;
  const sender = from ?? APP_SYSTEM;
  // A reply names no receiver: its thread's first message does. A receiver given anyway must match it.
  const body: unknown = req.body ?? null;
  const given = parentId !== undefined && typeof body === 'object' && body !== null && !Array.isArray(body)
    ? { ...(await app.queries.threadReceiver(context, parentId, sender)), ...body }
    : body;
  const input = parseSendBody(given);
  refuseBeyondRoleLimits(req, parentId === undefined ? 'send-message' : 'send-thread-message', input);
  return app.sending.send(context, { ...input, sender, ...(byApp ? { byApp } : {}), ...(parentId !== undefined ? { parentId } : {}) });
}

/**
 * `POST /v3/messages`, the route of every message a client sends, answered before express (ADR 0071)
 * exactly as the router's route answers it: same body, same errors, same consistency token.
 */
export function sendRoute(app: MessagesApp, bodyLimit: number): HotRoute {
  return {
    path: '/v3/messages',
    bodyLimit,
    answer: async (req) => ({ data: await sendAs(app, req, actorOf(req).uid ?? null) }),
  };
}
