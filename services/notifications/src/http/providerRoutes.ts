import { createPrivateKey } from 'node:crypto';
import { ApiError } from '@chat/contracts';
import type { NotificationChannel, NotificationProvider } from '@chat/contracts';
import { urlRefusal } from '@chat/delivery';
import type { PrivateAddressPolicy, SecretBox } from '@chat/delivery';
import { actorOf, correlationIdOf, parseWith } from '@chat/http';
import { Router } from 'express';
import type { Request } from 'express';
import { z } from 'zod';
import type { NotificationReadModels } from '../adapters/readModels.js';
import type { ConfigCommands } from '../app/configCommands.js';
import { SINGLE_PROVIDER_ID } from '../domain/appConfig.js';
import type { ProviderChange, ProviderEntry } from '../domain/appConfig.js';

const PROVIDER_ID = z.string().min(1).max(100).regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only');
const text = (max = 256) => z.string().max(max);
const silent = z.strictObject({ chat: z.boolean().optional(), call: z.boolean().optional() });

function privateKeyText(field: string) {
  return z
    .string()
    .min(1)
    .max(8_192)
    .refine(
      (pem) => {
        try {
          createPrivateKey(pem);
          return true;
        } catch {
          return false;
        }
      },
      { message: `${field} is not a PEM private key` },
    );
}

const fcmFields = {
  providerId: PROVIDER_ID.optional(),
  serviceAccountFilename: text().optional(),
  serviceAccountCreds: z
    .object({ project_id: text(), client_email: z.email(), private_key: privateKeyText('private_key'), private_key_id: text().optional() })
    .loose(),
  notificationInPayload: z.strictObject({ ios: silent.optional(), android: silent.optional(), web: silent.optional() }).optional(),
};
export const fcmCreate = z.strictObject(fcmFields);
export const fcmUpdate = z.strictObject({ ...fcmFields, serviceAccountCreds: fcmFields.serviceAccountCreds.optional() });

const apnsFields = {
  providerId: PROVIDER_ID.optional(),
  keyId: text(64),
  teamId: text(64),
  bundleId: text(),
  p8KeyFilename: text().optional(),
  p8Key: privateKeyText('p8Key'),
  includeContentAvailable: z.boolean().optional(),
  includeMutableContent: z.boolean().optional(),
  productionMode: z.boolean().optional(),
};
export const apnsCreate = z.strictObject(apnsFields);
export const apnsUpdate = z.strictObject(apnsFields).partial();

const webhookFields = {
  isEnabled: z.boolean(),
  webhookURL: text(2_048),
  useBasicAuth: z.boolean(),
  basicAuthUsername: text(),
  basicAuthPassword: text(),
};
export const customPushCreate = z.strictObject({ ...webhookFields, basicAuthUsername: text().optional(), basicAuthPassword: text().optional() });
export const customPushUpdate = z.strictObject(webhookFields).partial();
export const customSmsCreate = z.strictObject({ ...customPushCreate.shape, isEnabled: z.boolean().optional(), useBasicAuth: z.boolean().optional(), useStoredPhNo: z.boolean().default(false) });
export const customSmsUpdate = z.strictObject({ ...webhookFields, useStoredPhNo: z.boolean() }).partial();
export const customEmailCreate = z.strictObject({ ...customPushCreate.shape, isEnabled: z.boolean().optional(), useBasicAuth: z.boolean().optional(), useStoredEmailID: z.boolean().optional() });
export const customEmailUpdate = z.strictObject({ ...webhookFields, useStoredEmailID: z.boolean() }).partial();

const phone = z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 phone number');
export const twilioCreate = z.strictObject({ twilioAccountSID: text(64).min(1), twilioAuthToken: text().min(1), twilioSenderPhoneNumber: phone, isEnabled: z.boolean().optional() });
export const twilioUpdate = twilioCreate.partial();
export const sendgridCreate = z.strictObject({
  sendGridApiKey: text().min(1),
  sendGridTemplateID: text().min(1),
  sendGridUnsubscribeGroupID: z.union([text(64).min(1), z.number().int().min(0).transform(String)]),
  senderName: text().min(1),
  senderEmail: z.email(),
  allowEmailReplies: z.boolean().default(false),
  senderEmailForReplies: z.email().optional(),
  isEnabled: z.boolean().optional(),
});
export const sendgridUpdate = z.strictObject({ ...sendgridCreate.shape, allowEmailReplies: z.boolean() }).partial();

/** What is sealed per provider kind: never stored, published or shown in the clear. */
const secretFields: Record<NotificationProvider, readonly string[]> = {
  fcm: ['serviceAccountCreds'],
  apns: ['p8Key'],
  custom: ['basicAuthPassword'],
  twilio: ['twilioAuthToken'],
  sendgrid: ['sendGridApiKey'],
};

/** A secret as the API shows it: its last four characters, the rest masked. */
function masked(hint: string | undefined): string {
  return hint === undefined ? '' : `****${hint}`;
}

interface Kind {
  channel: NotificationChannel;
  provider: NotificationProvider;
}

/** The `/v3/notifications/{push,sms,email}/v1/providers/…` operations. */
export function providerRouter(options: {
  commands: ConfigCommands;
  readModels: NotificationReadModels;
  secrets: SecretBox;
  tenantUrls: PrivateAddressPolicy;
  forgetCredentials: (providerId: string) => void;
}): Router {
  const { commands, readModels, secrets, tenantUrls } = options;
  const router = Router();

  const providersOf = async (appId: string, kind: Kind): Promise<{ entries: ProviderEntry[]; defaults: Record<string, string | undefined> }> => {
    const app = await readModels.findApp(appId);
    const entries = Object.values(app?.providers ?? {}).filter((p) => p.channel === kind.channel && p.provider === kind.provider);
    return { entries: entries.sort((a, b) => a.providerId.localeCompare(b.providerId)), defaults: app?.defaults ?? {} };
  };
  const single = async (appId: string, kind: Kind): Promise<ProviderEntry> => {
    const found = (await providersOf(appId, kind)).entries.find((p) => p.providerId === SINGLE_PROVIDER_ID);
    if (!found) throw new ApiError('ERR_PROVIDER_NOT_CONFIGURED', `No ${kind.provider} ${kind.channel} provider is configured.`);
    return found;
  };

  /** Turns a validated body into a provider change: secrets sealed, a hint of each kept, URLs checked. */
  const changeOf = (kind: Kind, providerId: string, body: Record<string, unknown>): ProviderChange => {
    const url = body['webhookURL'];
    if (typeof url === 'string') {
      const refusal = urlRefusal(url, tenantUrls);
      if (refusal) throw new ApiError('ERR_PROVIDER_URL_NOT_ALLOWED', `webhookURL: ${refusal}.`, { field: 'webhookURL' });
    }
    const settings: Record<string, unknown> = {};
    const sealed: Record<string, string> = {};
    const hints: Record<string, string> = {};
    for (const [field, value] of Object.entries(body)) {
      if (value === undefined || field === 'providerId') continue;
      if (secretFields[kind.provider].includes(field)) {
        const plain = typeof value === 'string' ? value : JSON.stringify(value);
        sealed[field] = secrets.seal(plain);
        hints[field] = field === 'serviceAccountCreds' ? '' : plain.slice(-4);
        // The service account's public parts stay readable: the list shows which project it is.
        if (field === 'serviceAccountCreds' && typeof value === 'object' && value !== null) {
          const creds = value as Record<string, unknown>;
          settings['projectId'] = creds['project_id'];
          settings['clientEmail'] = creds['client_email'];
        }
      } else settings[field] = value;
    }
    return { ...kind, providerId, settings, secrets: sealed, hints };
  };

  const save = async (req: Request, kind: Kind, mode: 'create' | 'update', providerId: string, body: Record<string, unknown>) => {
    const actor = actorOf(req);
    if (mode === 'create' && body['useBasicAuth'] === true && (!body['basicAuthUsername'] || !body['basicAuthPassword'])) {
      throw new ApiError('ERR_BAD_REQUEST', 'basicAuthUsername: basicAuthUsername and basicAuthPassword are required when useBasicAuth is true.');
    }
    await commands.run(actor, correlationIdOf(req), { type: 'SaveProvider', mode, change: changeOf(kind, providerId, body), at: Date.now() });
    options.forgetCredentials(providerId);
  };
  const remove = async (req: Request, kind: Kind, providerId: string) => {
    const actor = actorOf(req);
    await commands.run(actor, correlationIdOf(req), { type: 'RemoveProvider', ...kind, providerId, at: Date.now() });
    options.forgetCredentials(providerId);
  };
  const success = { data: { success: true } };

  // FCM and APNs: several per app, one of each the default.
  const pushViews = {
    fcm: (p: ProviderEntry, isDefault: boolean) => ({
      providerId: p.providerId,
      serviceAccountFilename: p.settings['serviceAccountFilename'] ?? '',
      projectId: p.settings['projectId'] ?? '',
      clientEmail: p.settings['clientEmail'] ?? '',
      notificationInPayload: p.settings['notificationInPayload'] ?? {},
      isDefault,
    }),
    apns: (p: ProviderEntry, isDefault: boolean) => ({
      providerId: p.providerId,
      keyId: p.settings['keyId'] ?? '',
      teamId: p.settings['teamId'] ?? '',
      bundleId: p.settings['bundleId'] ?? '',
      p8KeyFilename: p.settings['p8KeyFilename'] ?? '',
      p8Key: masked(p.hints['p8Key']),
      includeContentAvailable: p.settings['includeContentAvailable'] ?? false,
      includeMutableContent: p.settings['includeMutableContent'] ?? false,
      productionMode: p.settings['productionMode'] ?? true,
      isDefault,
    }),
  };
  for (const provider of ['fcm', 'apns'] as const) {
    const kind: Kind = { channel: 'push', provider };
    const base = `/v3/notifications/push/v1/providers/${provider}`;
    const list = async (appId: string) => {
      const { entries, defaults } = await providersOf(appId, kind);
      return entries.map((p) => pushViews[provider](p, defaults[provider] === p.providerId));
    };
    router.get(base, async (req, res) => {
      res.json({ data: { pushProviders: await list(actorOf(req).appId) } });
    });
    router.post(base, async (req, res) => {
      const body = parseWith(provider === 'fcm' ? fcmCreate : apnsCreate, req.body ?? {});
      await save(req, kind, 'create', body.providerId ?? SINGLE_PROVIDER_ID, body);
      res.json(provider === 'fcm' ? success : { data: { pushProviders: await list(actorOf(req).appId) } });
    });
    router.put(base, async (req, res) => {
      const body = parseWith(provider === 'fcm' ? fcmUpdate : apnsUpdate, req.body ?? {});
      await save(req, kind, 'update', body.providerId ?? SINGLE_PROVIDER_ID, body);
      res.json(success);
    });
    router.delete(`${base}/:providerId`, async (req, res) => {
      await remove(req, kind, String(req.params['providerId']));
      res.json(success);
    });
    router.put(`${base}/default/:providerId`, async (req, res) => {
      const actor = actorOf(req);
      await commands.run(actor, correlationIdOf(req), { type: 'SetDefaultProvider', provider, providerId: String(req.params['providerId']), at: Date.now() });
      res.json(success);
    });
  }

  // The providers an app has one of.
  const webhookView = (p: ProviderEntry) => ({
    isEnabled: p.settings['isEnabled'] ?? true,
    webhookURL: p.settings['webhookURL'] ?? '',
    useBasicAuth: p.settings['useBasicAuth'] ?? false,
    basicAuthUsername: p.settings['basicAuthUsername'] ?? '',
    basicAuthPassword: masked(p.hints['basicAuthPassword']),
  });
  const singles: { path: string; kind: Kind; create: z.ZodType; update: z.ZodType; view: (p: ProviderEntry) => Record<string, unknown>; wrap?: boolean }[] = [
    { path: '/v3/notifications/push/v1/providers/custom', kind: { channel: 'push', provider: 'custom' }, create: customPushCreate, update: customPushUpdate, view: (p) => ({ providerId: p.providerId, ...webhookView(p) }), wrap: true },
    { path: '/v3/notifications/sms/v1/providers/custom', kind: { channel: 'sms', provider: 'custom' }, create: customSmsCreate, update: customSmsUpdate, view: (p) => ({ ...webhookView(p), useStoredPhNo: p.settings['useStoredPhNo'] ?? false }) },
    { path: '/v3/notifications/email/v1/providers/custom', kind: { channel: 'email', provider: 'custom' }, create: customEmailCreate, update: customEmailUpdate, view: (p) => ({ ...webhookView(p), useStoredEmailID: p.settings['useStoredEmailID'] ?? false }) },
    {
      path: '/v3/notifications/sms/v1/providers/twilio',
      kind: { channel: 'sms', provider: 'twilio' },
      create: twilioCreate,
      update: twilioUpdate,
      view: (p) => ({
        twilioAccountSID: p.settings['twilioAccountSID'] ?? '',
        twilioAuthToken: masked(p.hints['twilioAuthToken']),
        twilioSenderPhoneNumber: p.settings['twilioSenderPhoneNumber'] ?? '',
        isEnabled: p.settings['isEnabled'] ?? true,
      }),
    },
    {
      path: '/v3/notifications/email/v1/providers/sendgrid',
      kind: { channel: 'email', provider: 'sendgrid' },
      create: sendgridCreate,
      update: sendgridUpdate,
      view: (p) => ({
        sendGridApiKey: masked(p.hints['sendGridApiKey']),
        sendGridTemplateID: p.settings['sendGridTemplateID'] ?? '',
        sendGridUnsubscribeGroupID: p.settings['sendGridUnsubscribeGroupID'] ?? '',
        senderName: p.settings['senderName'] ?? '',
        senderEmail: p.settings['senderEmail'] ?? '',
        allowEmailReplies: p.settings['allowEmailReplies'] ?? false,
        senderEmailForReplies: p.settings['senderEmailForReplies'] ?? '',
        // Inbound replies are not handled by this deployment.
        repliesWebhook: '',
        isEnabled: p.settings['isEnabled'] ?? true,
      }),
    },
  ];
  for (const { path, kind, create, update, view, wrap } of singles) {
    const answer = async (appId: string) => {
      if (wrap) return { pushProviders: (await providersOf(appId, kind)).entries.map(view) };
      return view(await single(appId, kind));
    };
    router.get(path, async (req, res) => {
      res.json({ data: await answer(actorOf(req).appId) });
    });
    router.post(path, async (req, res) => {
      await save(req, kind, 'create', SINGLE_PROVIDER_ID, parseWith(create, req.body ?? {}) as Record<string, unknown>);
      res.json({ data: await answer(actorOf(req).appId) });
    });
    router.put(path, async (req, res) => {
      await save(req, kind, 'update', SINGLE_PROVIDER_ID, parseWith(update, req.body ?? {}) as Record<string, unknown>);
      res.json({ data: await answer(actorOf(req).appId) });
    });
    router.delete(path, async (req, res) => {
      await remove(req, kind, SINGLE_PROVIDER_ID);
      res.json(success);
    });
  }
  return router;
}

