import { z } from 'zod';

/*
 * The resources this service answers with, as its routes render them: the response side of the OpenAPI
 * description (openapi.ts). Loose objects: the fields a view always writes are required, the rest typed.
 */

/** An FCM or APNs provider (`pushViews`), or the custom push provider: secrets masked. */
export const pushProviderResource = z.looseObject({ providerId: z.string() });
export const pushProvidersAnswer = z.object({ pushProviders: z.array(pushProviderResource) });

/** The custom SMS/email provider, Twilio or SendGrid (`singles`): one per app, secrets masked. */
export const singleProviderResource = z.looseObject({ isEnabled: z.boolean() });

/** A user's preferences as the effective values (`preferencesView`). */
export const preferencesResource = z.looseObject({ preferences: z.looseObject({ group: z.unknown(), oneOnOne: z.unknown(), mute: z.unknown() }) });

/** `userShapeOf`: the preferences a reset leaves in force. */
export const resetPreferencesResource = z.record(z.string(), z.unknown());

const pushToken = z.looseObject({ pushToken: z.string(), platform: z.string(), providerId: z.string(), type: z.string(), registeredAt: z.number().int() });
export const pushTokensAnswer = z.object({ pushTokens: z.array(pushToken) });

const mutedConversation = z.looseObject({ id: z.string(), type: z.enum(['oneOnOne', 'group']), until: z.number().int().optional() });
export const mutedAnswer = z.object({ mutedConversations: z.array(mutedConversation) });

export const timezoneAnswer = z.object({ timezone: z.string() });
export const contactResource = z.object({ email: z.string(), phno: z.string() });

/** One notification log entry. */
export const logEntryResource = z.looseObject({});
