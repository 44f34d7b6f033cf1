import { conversationLogStreamId } from '@chat/contracts';
import { streamPage } from '@chat/eventsourcing';
import type { CommitReader } from '@chat/eventsourcing';
import { parseQuery } from '@chat/http';
import { Router } from 'express';
import { z } from 'zod';

const pageQuery = z.object({
  from: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(1_000).default(256),
});

/**
 * For the conversations service only (the gateway forwards catalogue routes, and `/internal` is in no
 * catalogue): a conversation's message stream, page by page, which its time-travel reads fold (ADR 0033).
 */
export function internalRouter(commits: CommitReader): Router {
  const router = Router();

  router.get('/internal/apps/:appId/conversations/:conversationId/events', async (req, res) => {
    const { from, limit } = parseQuery(pageQuery, req.query);
    res.json(await streamPage(commits, conversationLogStreamId(String(req.params['appId']), String(req.params['conversationId'])), from, limit));
  });

  return router;
}
