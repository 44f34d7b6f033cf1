import { acknowledgedShape, dataOf, listMetaShape } from '@chat/contracts';
import type { ErrorCode, RequestSchemas, ResponseSchemas } from '@chat/contracts';
import { z } from 'zod';
import { settingsPatchSchema } from '../domain/settings.js';
import { userPreferencesSchema } from '../domain/preferences.js';
import { logQuery } from './logRoutes.js';
import {
  apnsCreate,
  apnsUpdate,
  customEmailCreate,
  customEmailUpdate,
  customPushCreate,
  customPushUpdate,
  customSmsCreate,
  customSmsUpdate,
  fcmCreate,
  fcmUpdate,
  sendgridCreate,
  sendgridUpdate,
  twilioCreate,
  twilioUpdate,
} from './providerRoutes.js';
import {
  contactResource,
  logEntryResource,
  mutedAnswer,
  preferencesResource,
  pushProvidersAnswer,
  pushTokensAnswer,
  resetPreferencesResource,
  singleProviderResource,
  timezoneAnswer,
} from './resourceSchemas.js';
import { contactBody, muteBody, timezoneBody, uidQuery, unmuteBody } from './recipientRoutes.js';
import { allQuery, listQuery, registerBody, sessionBody } from './tokenRoutes.js';

/** What each operation of this service parses, for the generated OpenAPI description (npm run openapi). */
export const requestSchemas: RequestSchemas = {
  'notifications-push-update-settings': { body: settingsPatchSchema },
  'notifications-push-add-fcm-provider': { body: fcmCreate },
  'notifications-push-update-fcm-provider': { body: fcmUpdate },
  'notifications-push-add-apns-provider': { body: apnsCreate },
  'notifications-push-update-apns-provider': { body: apnsUpdate },
  'notifications-push-list-preferences': { query: uidQuery },
  'notifications-push-update-preferences': { query: uidQuery, body: userPreferencesSchema },
  'notifications-push-reset-preferences': { query: uidQuery },
  'notifications-push-list-tokens': { query: listQuery },
  'notifications-push-register-token': { body: registerBody },
  'notifications-push-unregister-tokens': { query: allQuery, body: sessionBody },
  'notifications-push-delete-token': { body: sessionBody },
  'notifications-push-list-muted': { query: uidQuery },
  'notifications-push-mute-conversations': { query: uidQuery, body: muteBody },
  'notifications-push-unmute-conversations': { query: uidQuery, body: unmuteBody },
  'notifications-get-timezone': { query: uidQuery },
  'notifications-update-timezone': { query: uidQuery, body: timezoneBody },
  'notifications-update-contact-details': { body: contactBody },
  'notifications-sms-save-twilio-details': { body: twilioCreate },
  'notifications-sms-update-twilio-details': { body: twilioUpdate },
  'notifications-email-save-sendgrid-details': { body: sendgridCreate },
  'notifications-email-update-sendgrid-details': { body: sendgridUpdate },
  'notifications-save-push-custom-provider': { body: customPushCreate },
  'notifications-update-push-custom-provider': { body: customPushUpdate },
  'notifications-save-sms-custom-provider': { body: customSmsCreate },
  'notifications-update-sms-custom-provider': { body: customSmsUpdate },
  'notifications-save-email-custom-provider': { body: customEmailCreate },
  'notifications-update-email-custom-provider': { body: customEmailUpdate },
  'notifications-logs': { query: logQuery },
};

const ok = acknowledgedShape;
const pushProviders = dataOf(pushProvidersAnswer);
const single = dataOf(singleProviderResource);
const PROVIDER: ErrorCode[] = ['ERR_PROVIDER_NOT_CONFIGURED'];
const PUSH_PROVIDER: ErrorCode[] = ['ERR_PUSH_PROVIDER_NOT_FOUND'];
const URL_PROVIDER: ErrorCode[] = ['ERR_PROVIDER_URL_NOT_ALLOWED'];
const RECIPIENT: ErrorCode[] = ['ERR_UID_NOT_FOUND'];
const SESSION: ErrorCode[] = ['ERR_AUTH_TOKEN_NOT_FOUND', 'ERR_UID_NOT_FOUND'];
const singleProvider = (extra: ErrorCode[] = []) => ({
  list: { body: single, errors: PROVIDER },
  save: { body: single, errors: extra },
  update: { body: single, errors: [...PROVIDER, ...extra] },
  delete: { body: ok, errors: PROVIDER },
});
const twilio = singleProvider();
const sendgrid = singleProvider();
const customSms = singleProvider(URL_PROVIDER);
const customEmail = singleProvider(URL_PROVIDER);

/** What each operation of this service answers (beyond the codes `commonErrors` gives every operation). */
export const responseSchemas: ResponseSchemas = {
  'notifications-push-list-settings': { body: dataOf(z.record(z.string(), z.unknown())) },
  'notifications-push-update-settings': { body: ok },
  'notifications-push-reset-settings': { body: ok },
  'notifications-push-list-fcm-providers': { body: pushProviders },
  'notifications-push-add-fcm-provider': { body: ok },
  'notifications-push-update-fcm-provider': { body: ok, errors: PUSH_PROVIDER },
  'notifications-push-delete-fcm-provider': { body: ok, errors: PUSH_PROVIDER },
  'notifications-push-default-fcm-provider': { body: ok, errors: PUSH_PROVIDER },
  'notifications-push-list-apns-providers': { body: pushProviders },
  'notifications-push-add-apns-provider': { body: pushProviders },
  'notifications-push-update-apns-provider': { body: ok, errors: PUSH_PROVIDER },
  'notifications-push-delete-apns-provider': { body: ok, errors: PUSH_PROVIDER },
  'notifications-push-default-apns-provider': { body: ok, errors: PUSH_PROVIDER },
  'notifications-push-list-preferences': { body: dataOf(preferencesResource), errors: RECIPIENT },
  'notifications-push-update-preferences': { body: dataOf(preferencesResource), errors: RECIPIENT },
  'notifications-push-reset-preferences': { body: dataOf(resetPreferencesResource), errors: RECIPIENT },
  'notifications-push-list-tokens': { body: dataOf(pushTokensAnswer), errors: SESSION },
  'notifications-push-register-token': { body: ok, errors: [...SESSION, 'ERR_INVALID_TIMEZONE'] },
  'notifications-push-unregister-tokens': { body: dataOf(pushTokensAnswer), errors: SESSION },
  'notifications-push-delete-token': { body: dataOf(pushTokensAnswer), errors: [...SESSION, 'ERR_PUSH_TOKEN_NOT_FOUND'] },
  'notifications-push-list-muted': { body: dataOf(mutedAnswer), errors: RECIPIENT },
  'notifications-push-mute-conversations': { body: ok, errors: RECIPIENT },
  'notifications-push-unmute-conversations': { body: ok, errors: RECIPIENT },
  'notifications-get-timezone': { body: dataOf(timezoneAnswer), errors: RECIPIENT },
  'notifications-update-timezone': { body: dataOf(timezoneAnswer), errors: [...RECIPIENT, 'ERR_INVALID_TIMEZONE'] },
  'notifications-get-contact-details': { body: dataOf(contactResource), errors: RECIPIENT },
  'notifications-update-contact-details': { body: dataOf(contactResource), errors: RECIPIENT },
  'notifications-delete-contact-details': { body: ok, errors: RECIPIENT },
  'notifications-sms-list-twilio-details': twilio.list,
  'notifications-sms-save-twilio-details': twilio.save,
  'notifications-sms-update-twilio-details': twilio.update,
  'notifications-sms-delete-twilio-details': twilio.delete,
  'notifications-email-list-sendgrid-details': sendgrid.list,
  'notifications-email-save-sendgrid-details': sendgrid.save,
  'notifications-email-update-sendgrid-details': sendgrid.update,
  'notifications-email-delete-sendgrid-details': sendgrid.delete,
  'notifications-list-push-custom-provider': { body: pushProviders },
  'notifications-save-push-custom-provider': { body: pushProviders, errors: URL_PROVIDER },
  'notifications-update-push-custom-provider': { body: pushProviders, errors: [...PROVIDER, ...URL_PROVIDER] },
  'notifications-delete-push-custom-provider': { body: ok, errors: PROVIDER },
  'notifications-list-sms-custom-provider': customSms.list,
  'notifications-save-sms-custom-provider': customSms.save,
  'notifications-update-sms-custom-provider': customSms.update,
  'notifications-delete-sms-custom-provider': customSms.delete,
  'notifications-list-email-custom-provider': customEmail.list,
  'notifications-save-email-custom-provider': customEmail.save,
  'notifications-update-email-custom-provider': customEmail.update,
  'notifications-delete-email-custom-provider': customEmail.delete,
  'notifications-logs': { body: z.object({ data: z.array(logEntryResource), meta: listMetaShape }) },
};
