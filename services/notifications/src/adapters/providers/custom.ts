import type { OutboundHttp } from '@chat/delivery';
import { basicAuth, settingString } from './endpoints.js';
import type { OpenProvider, OutgoingNotification, ProviderAdapter, ProviderAnswer } from './endpoints.js';

/**
 * The custom push, SMS and email providers: the payload POSTed as JSON to the app's own URL, with
 * Basic Auth when the provider uses it. The URL is the customer's, so it goes through the guarded
 * sender (no private addresses unless the deployment allows them).
 */
export class CustomProvider implements ProviderAdapter {
  constructor(private readonly sender: OutboundHttp) {}

  async send(notification: OutgoingNotification, provider: OpenProvider): Promise<ProviderAnswer> {
    const password = provider.secrets['basicAuthPassword'];
    const username = settingString(provider, 'basicAuthUsername');
    const headers: Record<string, string> = { 'user-agent': 'chat-platform-notifications/1' };
    if (provider.settings['useBasicAuth'] === true && username && password !== undefined) headers['authorization'] = basicAuth(username, password);
    const sent = await this.sender.post(settingString(provider, 'webhookURL'), headers, JSON.stringify(notification.payload));
    return {
      ...(sent.status !== undefined ? { status: sent.status } : {}),
      ...(sent.error !== undefined ? { error: sent.error } : {}),
      latencyMs: sent.latencyMs,
      responsePrefix: sent.responsePrefix,
    };
  }
}
