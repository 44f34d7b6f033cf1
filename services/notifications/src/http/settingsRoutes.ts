import { actorOf, correlationIdOf, parseWith } from '@chat/http';
import { Router } from 'express';
import type { AppDirectory } from '../app/directory.js';
import type { ConfigCommands } from '../app/configCommands.js';
import { settingsPatchSchema } from '../domain/settings.js';

/** `/v3/notifications/v1/settings`: the app's notification settings (CometChat's dashboard values). */
export function settingsRouter(commands: ConfigCommands, directory: AppDirectory): Router {
  const router = Router();
  router.get('/v3/notifications/v1/settings', async (req, res) => {
    const { appId } = actorOf(req);
    res.json({ data: (await directory.get(appId, Date.now())).settings });
  });
  router.patch('/v3/notifications/v1/settings', async (req, res) => {
    const actor = actorOf(req);
    const patch = parseWith(settingsPatchSchema, req.body ?? {});
    await commands.run(actor, correlationIdOf(req), { type: 'PatchSettings', patch, at: Date.now() });
    res.json({ data: { success: true } });
  });
  router.delete('/v3/notifications/v1/settings', async (req, res) => {
    const actor = actorOf(req);
    await commands.run(actor, correlationIdOf(req), { type: 'ResetSettings', at: Date.now() });
    res.json({ data: { success: true } });
  });
  return router;
}
