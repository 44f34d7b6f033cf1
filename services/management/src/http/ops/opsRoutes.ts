import { deadLetterTopic, topics } from '@chat/contracts';
import { parseQuery, parseWith, requireManagementCaller } from '@chat/http';
import { deadLettersOf, eventsOf, lagOfAllGroups, redriveDeadLetters } from '@chat/kafka';
import { Router } from 'express';
import type { Admin, Kafka } from 'kafkajs';
import { z } from 'zod';

const knownTopics = Object.values(topics) as [string, ...string[]];
const groupName = z.string().regex(/^[\w.-]{1,200}$/, 'a consumer group name');

export const opsEventsQuery = z.object({
  topic: z.enum(knownTopics),
  appId: z.string().min(1).max(100).optional(),
  type: z.string().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
export const opsDeadLettersQuery = z.object({ group: groupName });
export const opsRedriveBody = z.object({ group: groupName });

/** One admin connection per call: these are an operator's occasional requests, not traffic. */
async function withAdmin<T>(kafka: Kafka, work: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.disconnect();
  }
}

/**
 * The operator console's view of the log (management credentials): consumer lag, recent events of a
 * topic, a group's dead letters and their redrive. The same functions back the `chatctl` CLI.
 */
export function opsRouter(kafka: Kafka): Router {
  const router = Router();
  router.use('/ops', requireManagementCaller);

  router.get('/ops/lag', async (_req, res) => {
    const rows = await withAdmin(kafka, (admin) => lagOfAllGroups(kafka, admin));
    res.json({ data: rows });
  });

  router.get('/ops/events', async (req, res) => {
    const { topic, appId, type, limit } = parseQuery(opsEventsQuery, req.query);
    const events = await withAdmin(kafka, (admin) => eventsOf(kafka, admin, topic, { ...(appId ? { appId } : {}), ...(type ? { type } : {}) }));
    // Newest last, as a tail shows them.
    res.json({ data: events.slice(-limit) });
  });

  router.get('/ops/deadletters', async (req, res) => {
    const { group } = parseQuery(opsDeadLettersQuery, req.query);
    const letters = await withAdmin(kafka, (admin) => deadLettersOf(kafka, admin, group));
    res.json({
      data: letters.map(({ message, ...letter }) => ({
        ...letter,
        topic: deadLetterTopic(group),
        key: message.key?.toString('utf8') ?? null,
        // A preview: a dead letter may be anything, up to the broker's message size.
        value: (message.value?.toString('utf8') ?? '').slice(0, 2_000),
      })),
    });
  });

  router.post('/ops/deadletters/redrive', async (req, res) => {
    const { group } = parseWith(opsRedriveBody, req.body ?? null);
    const redriven = await withAdmin(kafka, (admin) => redriveDeadLetters(kafka, admin, group));
    res.json({ data: { group, redriven } });
  });

  return router;
}
