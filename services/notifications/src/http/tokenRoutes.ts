import { createHash } from 'node:crypto';
import { ApiError } from '@chat/contracts';
import type { AuthTokenOwner, PushTokenType } from '@chat/contracts';
import { actorOf, correlationIdOf, parseQuery, parseWith } from '@chat/http';
import { Router } from 'express';
import { z } from 'zod';
import type { AppDirectory } from '../app/directory.js';
import type { RecipientCommands } from '../app/recipientCommands.js';
import { SINGLE_PROVIDER_ID } from '../domain/appConfig.js';
import { tokenKey } from '../domain/recipient.js';
import type { RecipientDocument } from '../projections/recipients.js';
import { requireTimezone } from './recipientRoutes.js';

const fcmPlatforms = [
  'fcm_android',
  'fcm_ios',
  'fcm_web',
  'fcm_flutter_android',
  'fcm_flutter_ios',
  'fcm_react_native_android',
  'fcm_react_native_ios',
  'fcm_ionic_cordova_android',
  'fcm_ionic_cordova_ios',
] as const;
const apnsDevicePlatforms = ['apns_ios_device', 'apns_flutter_device', 'apns_react_native_device', 'apns_ionic_cordova_device'] as const;
const apnsVoipPlatforms = ['apns_ios_voip', 'apns_flutter_voip', 'apns_ionic_cordova_voip', 'apns_react_native_voip'] as const;

const token = z.string().min(1).max(4096);
const authToken = z.string().min(1).max(512);
const common = { providerId: z.string().min(1).max(100).optional(), authToken, timezone: z.string().max(64).optional() };
export const registerBody = z.discriminatedUnion('platform', [
  z.strictObject({ platform: z.enum(fcmPlatforms), fcmToken: token, ...common }),
  z.strictObject({ platform: z.enum(apnsDevicePlatforms), deviceToken: token, ...common }),
  z.strictObject({ platform: z.enum(apnsVoipPlatforms), voipToken: token, ...common }),
]);
export const listQuery = z.object({ authToken, all: z.enum(['true', 'false']).default('false') });
export const allQuery = z.object({ all: z.enum(['true', 'false']).default('false') });
export const sessionBody = z.strictObject({ authToken });

/** Whose live auth token has this SHA-256 (hex) in the app: the users service's answer, null when none. */
export type AuthTokenOwnerLookup = (appId: string, tokenHash: string) => Promise<AuthTokenOwner | null>;

/** `/v3/notifications/push/v1/tokens`: a signed-in user's push tokens, named by their auth token. */
export function tokenRouter(commands: RecipientCommands, ownerOf: AuthTokenOwnerLookup, directory: AppDirectory): Router {
  const router = Router();

  /**
   * The user and session an auth token stands for, asked of the users service that issued it (ADR 0144):
   * a client registers its push token the moment it signs in, before the token's event could reach a
   * copy here, and a revoked token or a deactivated user is refused at once. The session is the token's
   * SHA-256, which is the `tokenId` the users service's revocation events name.
   */
  const sessionOf = async (appId: string, given: string) => {
    const fingerprint = createHash('sha256').update(given).digest('hex');
    // No answer from the users service throws `UsersServiceUnavailableError`: 503 with Retry-After.
    const owner = await ownerOf(appId, fingerprint);
    if (!owner) throw new ApiError('ERR_AUTH_TOKEN_NOT_FOUND', 'authToken: no live session of this app has that auth token.');
    return { uid: owner.uid, sessionId: fingerprint };
  };
  const tokensOf = (recipient: RecipientDocument, sessionId: string | null) =>
    Object.values(recipient.tokens)
      .filter((t) => sessionId === null || t.sessionId === sessionId)
      .map((t) => ({ pushToken: t.token, platform: t.platform, providerId: t.providerId, type: t.tokenType, registeredAt: t.registeredAt }));

  router.get('/v3/notifications/push/v1/tokens', async (req, res) => {
    const actor = actorOf(req);
    const query = parseQuery(listQuery, req.query);
    const session = await sessionOf(actor.appId, query.authToken);
    const recipient = await commands.requireUser(actor.appId, session.uid);
    res.json({ data: { pushTokens: tokensOf(recipient, query.all === 'true' ? null : session.sessionId) } });
  });

  router.post('/v3/notifications/push/v1/tokens', async (req, res) => {
    const actor = actorOf(req);
    const body = parseWith(registerBody, req.body ?? {});
    const session = await sessionOf(actor.appId, body.authToken);
    const [pushToken, tokenType]: [string, PushTokenType] =
      'fcmToken' in body ? [body.fcmToken, 'fcm'] : 'deviceToken' in body ? [body.deviceToken, 'apns_device'] : [body.voipToken, 'apns_voip'];
    const kind = tokenType === 'fcm' ? 'fcm' : 'apns';
    const { defaults } = await directory.get(actor.appId, Date.now());
    const providerId = body.providerId ?? defaults[kind] ?? SINGLE_PROVIDER_ID;
    const correlationId = correlationIdOf(req);
    const now = Date.now();
    if (body.timezone !== undefined) {
      const timezone = requireTimezone(body.timezone);
      await commands.run(actor, correlationId, session.uid, { type: 'SetTimezone', uid: session.uid, timezone, at: now });
    }
    await commands.run(actor, correlationId, session.uid, {
      type: 'RegisterToken',
      registration: { uid: session.uid, token: pushToken, tokenType, platform: body.platform, providerId, sessionId: session.sessionId, registeredAt: now },
    });
    res.json({ data: { success: true } });
  });

  router.delete('/v3/notifications/push/v1/tokens', async (req, res) => {
    const actor = actorOf(req);
    const { all } = parseQuery(allQuery, req.query);
    const body = parseWith(sessionBody, req.body ?? {});
    const session = await sessionOf(actor.appId, body.authToken);
    const before = await commands.requireUser(actor.appId, session.uid);
    const tokens = tokensOf(before, all === 'true' ? null : session.sessionId).map((t) => t.pushToken);
    const after =
      tokens.length === 0
        ? before
        : await commands.run(actor, correlationIdOf(req), session.uid, { type: 'RemoveTokens', uid: session.uid, tokens, reason: 'unregistered', at: Date.now() });
    res.json({ data: { pushTokens: tokensOf(after, null) } });
  });

  router.delete('/v3/notifications/push/v1/tokens/:pushToken', async (req, res) => {
    const actor = actorOf(req);
    const body = parseWith(sessionBody, req.body ?? {});
    const session = await sessionOf(actor.appId, body.authToken);
    const pushToken = String(req.params['pushToken']);
    const before = await commands.requireUser(actor.appId, session.uid);
    if (!before.tokens[tokenKey(pushToken)]) throw new ApiError('ERR_PUSH_TOKEN_NOT_FOUND', 'pushToken: the user has no such push token.');
    const after = await commands.run(actor, correlationIdOf(req), session.uid, {
      type: 'RemoveTokens',
      uid: session.uid,
      tokens: [pushToken],
      reason: 'unregistered',
      at: Date.now(),
    });
    res.json({ data: { pushTokens: tokensOf(after, null) } });
  });
  return router;
}
