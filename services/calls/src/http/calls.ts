import { ApiError, consistencyHeaders } from '@chat/contracts';
import { ListCursor, actorOf, listMeta, pageInMemory, parseQuery } from '@chat/http';
import { Router } from 'express';
import type { Request, RequestHandler } from 'express';
import type { CallsReadModels } from '../adapters/readModels.js';
import { callView, transcriptionView } from '../domain/callRecord.js';
import type { CallDoc } from '../projections/calls.js';
import { callsListSchema, transcriptionsPageSchema } from './schemas.js';

function callNotFound(sessionId: string): ApiError {
  return new ApiError('ERR_CALL_NOT_FOUND', `The call with session id ${sessionId} does not exist.`);
}

/** What a read waits for before it reads the call records (`ProjectionCatchUp`). */
export interface CatchUp {
  caughtUp(): Promise<boolean>;
}

/**
 * Reads answer once the calls projection has applied every call message that was on the messages
 * topic when they came (ADR 0064), so a call message's send that answered is seen; a read that waited
 * its bound answers anyway, marked `x-consistency-stale: true` (as token reads are, ADR 0031).
 */
export function afterCatchUp(catchUp: CatchUp): RequestHandler {
  return (_req, res, next) => {
    catchUp.caughtUp().then((fresh) => {
      if (!fresh) res.setHeader(consistencyHeaders.stale, 'true');
      next();
    }, next);
  };
}

/**
 * The calls API (`{calls_url}`: `{appId}.call-{region}.{domain}/v3`, or `/v3/calls…` on a plain host):
 * call records folded from call messages (projections/calls). With `onBehalfOf`, only the calls that
 * user took part in exist.
 */
export function callsRouter(readModels: CallsReadModels, catchUp: CatchUp): Router {
  const router = Router();
  router.use('/v3/calls', afterCatchUp(catchUp));

  const visibleCall = async (req: Request): Promise<CallDoc> => {
    const actor = actorOf(req);
    const sessionId = String(req.params['sessionId'] ?? '');
    const call = await readModels.findCall(actor.appId, sessionId);
    if (!call || (actor.uid !== undefined && !call.uids.includes(actor.uid))) throw callNotFound(sessionId);
    return call;
  };

  router.get('/v3/calls', async (req, res) => {
    const actor = actorOf(req);
    const q = parseQuery(callsListSchema, req.query);
    // On behalf of a user, only that user's calls; `uid` narrows them to the calls shared with that user.
    const uids = [...new Set([actor.uid, q.uid].filter((uid): uid is string => uid !== undefined))];
    const query = {
      appId: actor.appId,
      uids,
      ...(q.type !== undefined ? { type: q.type } : {}),
      ...(q.mode !== undefined ? { mode: q.mode } : {}),
      ...(q.status !== undefined ? { status: q.status } : {}),
      ...(q.receiverType !== undefined ? { receiverType: q.receiverType } : {}),
      ...(q.participantsCount !== undefined ? { participantsCount: q.participantsCount } : {}),
      ...(q.hasRecording !== undefined ? { hasRecording: q.hasRecording } : {}),
      ...(q.hasTranscription !== undefined ? { hasTranscription: q.hasTranscription } : {}),
      ...(q.startedAt !== undefined ? { startedFrom: q.startedAt } : {}),
      ...(q.endedAt !== undefined ? { endedBy: q.endedAt } : {}),
    };
    const { appId, ...selecting } = query;
    void appId;
    const cursor = new ListCursor('list-calls', selecting, q.cursor, q.page);
    const { total, items, more } = await readModels.pageCalls(query, cursor.position(q.perPage), q.perPage);
    const last = items.at(-1);
    res.json({
      data: items.map((call) => callView(call)),
      meta: listMeta(total, items.length, q.perPage, cursor, cursor.next(last ? [last.initiatedAt, last.sessionId] : undefined, more)),
    });
  });

  router.get('/v3/calls/:sessionId', async (req, res) => {
    res.json({ data: callView(await visibleCall(req), true) });
  });

  router.get('/v3/calls/:sessionId/transcriptions', async (req, res) => {
    const call = await visibleCall(req);
    const { page, perPage, cursor } = parseQuery(transcriptionsPageSchema, req.query);
    const position = new ListCursor('retrieve-call-transcriptions', { sessionId: call.sessionId }, cursor, page);
    // In the order they were recorded; a transcription's place in that order is its key.
    const numbered = call.transcriptions.map((transcription, index) => ({ transcription, index }));
    const { items, next } = pageInMemory(numbered, (entry) => [entry.index], [1], position, perPage);
    res.json({
      data: items.map((entry) => transcriptionView(call, entry.transcription)),
      meta: listMeta(call.transcriptions.length, items.length, perPage, position, next),
    });
  });

  return router;
}
