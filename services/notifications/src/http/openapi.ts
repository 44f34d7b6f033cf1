import type { RequestSchemas } from '@chat/contracts';
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
