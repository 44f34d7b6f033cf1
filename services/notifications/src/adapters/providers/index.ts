import type { OutboundHttp } from '@chat/delivery';
import { ApnsProvider } from './apns.js';
import { CustomProvider } from './custom.js';
import { TokenCache } from './endpoints.js';
import type { OpenProvider, OutgoingNotification, ProviderAdapter, ProviderAnswer, ProviderEndpoints } from './endpoints.js';
import { FcmProvider } from './fcm.js';
import { SendGridProvider } from './sendgrid.js';
import { TwilioProvider } from './twilio.js';

/** Every provider adapter, chosen by the provider's kind. */
export class Providers {
  /** Kept apart: an FCM and an APNs provider may have the same id. */
  private readonly fcmTokens = new TokenCache();
  private readonly apnsTokens = new TokenCache();
  private readonly apns: ApnsProvider;
  private readonly adapters: Record<OpenProvider['provider'], ProviderAdapter>;

  constructor(options: { endpoints: ProviderEndpoints; timeoutMs: number; customSender: OutboundHttp }) {
    this.apns = new ApnsProvider(options.endpoints, options.timeoutMs, this.apnsTokens);
    this.adapters = {
      custom: new CustomProvider(options.customSender),
      fcm: new FcmProvider(options.endpoints, options.timeoutMs, this.fcmTokens),
      apns: this.apns,
      twilio: new TwilioProvider(options.endpoints, options.timeoutMs),
      sendgrid: new SendGridProvider(options.endpoints, options.timeoutMs),
    };
  }

  send(notification: OutgoingNotification, provider: OpenProvider): Promise<ProviderAnswer> {
    return this.adapters[provider.provider].send(notification, provider);
  }

  /** Credentials changed: cached access and provider tokens are dropped. */
  forget(providerId: string): void {
    this.fcmTokens.forget(providerId);
    this.apnsTokens.forget(providerId);
  }

  close(): void {
    this.apns.close();
  }
}

export type { OpenProvider, OutgoingNotification, ProviderAnswer, ProviderEndpoints } from './endpoints.js';
