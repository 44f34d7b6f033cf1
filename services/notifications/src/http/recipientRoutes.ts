import { ApiError, UID_PATTERN } from '@chat/contracts';
import { actingUid, actorOf, correlationIdOf, parseQuery, parseWith } from '@chat/http';
import { Router } from 'express';
import type { Request } from 'express';
import { z } from 'zod';
import type { AppDirectory } from '../app/directory.js';
import type { RecipientCommands } from '../app/recipientCommands.js';
import { effectivePreferences, userPreferencesSchema, userShapeOf } from '../domain/preferences.js';
import { isTimezone } from '../domain/quietHours.js';
import type { RecipientDocument } from '../projections/recipients.js';

export const uidQuery = z.object({
  uid: z
    .string()
    .min(1)
    .max(100)
    .transform((v) => v.toLowerCase())
    .pipe(z.string().regex(UID_PATTERN, 'must be a valid UID (a-z, 0-9, _ and -)')),
});
const conversation = z.strictObject({ id: z.string().min(1).max(100), type: z.enum(['oneOnOne', 'group']) });
export const muteBody = z.strictObject({
  conversations: z.array(conversation.extend({ until: z.number().int().min(0).max(8_640_000_000_000_000).optional() })).min(1).max(100),
});
export const unmuteBody = z.strictObject({ conversations: z.array(conversation).min(1).max(100) });
export const timezoneBody = z.strictObject({ timezone: z.string().min(1).max(64) });
export const contactBody = z
  .strictObject({
    email: z.email().max(254).optional(),
    phno: z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 phone number, e.g. +14155550100').optional(),
  })
  .refine((b) => b.email !== undefined || b.phno !== undefined, { message: 'give email, phno or both', path: ['email'] });

export function requireTimezone(timezone: string): string {
  if (!isTimezone(timezone)) throw new ApiError('ERR_INVALID_TIMEZONE', `timezone: '${timezone}' is not an IANA time zone name (e.g. Europe/Berlin).`);
  return timezone;
}

/** The user's preferences, mutes and timezone (`?uid=`), and the acting user's contact details. */
export function recipientRouter(commands: RecipientCommands, directory: AppDirectory, defaultTimezone: string): Router {
  const router = Router();
  const uidOf = (req: Request) => parseQuery(uidQuery, { uid: req.query['uid'] }).uid;

  const preferencesView = async (appId: string, recipient: RecipientDocument) => {
    const { settings } = await directory.get(appId, Date.now());
    const effective = effectivePreferences(settings, recipient.preferences ?? undefined);
    return { effective, view: { preferences: { group: effective.group, oneOnOne: effective.oneOnOne, mute: effective.mute }, sound: settings.sound, templates: settings.templates } };
  };

  router.get('/v3/notifications/v1/preferences', async (req, res) => {
    const actor = actorOf(req);
    const recipient = await commands.requireUser(actor.appId, uidOf(req));
    res.json({ data: (await preferencesView(actor.appId, recipient)).view });
  });
  router.patch('/v3/notifications/v1/preferences', async (req, res) => {
    const actor = actorOf(req);
    const uid = uidOf(req);
    const patch = parseWith(userPreferencesSchema, req.body ?? {});
    const recipient = await commands.run(actor, correlationIdOf(req), uid, { type: 'PatchPreferences', uid, patch, at: Date.now() });
    res.json({ data: (await preferencesView(actor.appId, recipient)).view });
  });
  router.delete('/v3/notifications/v1/preferences', async (req, res) => {
    const actor = actorOf(req);
    const uid = uidOf(req);
    const recipient = await commands.run(actor, correlationIdOf(req), uid, { type: 'ResetPreferences', uid, at: Date.now() });
    res.json({ data: userShapeOf((await preferencesView(actor.appId, recipient)).effective) });
  });

  router.get('/v3/notifications/v1/preferences/mute', async (req, res) => {
    const actor = actorOf(req);
    const recipient = await commands.requireUser(actor.appId, uidOf(req));
    const now = Date.now();
    const mutedConversations = Object.values(recipient.mutes)
      .filter((m) => m.until === null || m.until > now)
      .map((m) => ({ id: m.id, type: m.type, ...(m.until !== null ? { until: m.until } : {}) }));
    res.json({ data: { mutedConversations } });
  });
  router.put('/v3/notifications/v1/preferences/mute', async (req, res) => {
    const actor = actorOf(req);
    const uid = uidOf(req);
    const { conversations } = parseWith(muteBody, req.body ?? {});
    await commands.run(actor, correlationIdOf(req), uid, { type: 'Mute', uid, conversations, at: Date.now() });
    res.json({ data: { success: true } });
  });
  router.delete('/v3/notifications/v1/preferences/mute', async (req, res) => {
    const actor = actorOf(req);
    const uid = uidOf(req);
    const { conversations } = parseWith(unmuteBody, req.body ?? {});
    await commands.run(actor, correlationIdOf(req), uid, { type: 'Unmute', uid, conversations, at: Date.now() });
    res.json({ data: { success: true } });
  });

  router.get('/v3/notifications/v1/preferences/timezone', async (req, res) => {
    const actor = actorOf(req);
    const recipient = await commands.requireUser(actor.appId, uidOf(req));
    res.json({ data: { timezone: recipient.timezone ?? defaultTimezone } });
  });
  router.patch('/v3/notifications/v1/preferences/timezone', async (req, res) => {
    const actor = actorOf(req);
    const uid = uidOf(req);
    const timezone = requireTimezone(parseWith(timezoneBody, req.body ?? {}).timezone);
    const recipient = await commands.run(actor, correlationIdOf(req), uid, { type: 'SetTimezone', uid, timezone, at: Date.now() });
    res.json({ data: { timezone: recipient.timezone ?? defaultTimezone } });
  });

  const contactOf = (recipient: RecipientDocument) => ({ email: recipient.email ?? '', phno: recipient.phno ?? '' });
  router.get('/v3/notifications/v1/contact-details', async (req, res) => {
    const actor = actorOf(req);
    res.json({ data: contactOf(await commands.requireUser(actor.appId, actingUid(actor))) });
  });
  router.patch('/v3/notifications/v1/contact-details', async (req, res) => {
    const actor = actorOf(req);
    const uid = actingUid(actor);
    const body = parseWith(contactBody, req.body ?? {});
    const recipient = await commands.run(actor, correlationIdOf(req), uid, { type: 'PatchContact', uid, ...body, at: Date.now() });
    res.json({ data: contactOf(recipient) });
  });
  router.delete('/v3/notifications/v1/contact-details', async (req, res) => {
    const actor = actorOf(req);
    const uid = actingUid(actor);
    await commands.run(actor, correlationIdOf(req), uid, { type: 'RemoveContact', uid, at: Date.now() });
    res.json({ data: { success: true } });
  });
  return router;
}
