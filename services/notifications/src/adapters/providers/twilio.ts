import { basicAuth, postTo, settingString } from './endpoints.js';
import type { OpenProvider, OutgoingNotification, ProviderAdapter, ProviderAnswer, ProviderEndpoints } from './endpoints.js';

/** Twilio's Messages API: a form-encoded `POST /2010-04-01/Accounts/{SID}/Messages.json`, Basic Auth SID:token. */
export class TwilioProvider implements ProviderAdapter {
  constructor(
    private readonly endpoints: ProviderEndpoints,
    private readonly timeoutMs: number,
  ) {}

  async send(notification: OutgoingNotification, provider: OpenProvider): Promise<ProviderAnswer> {
    const sid = settingString(provider, 'twilioAccountSID');
    const data = (notification.payload['data'] ?? {}) as { to?: { phno?: string }; text?: string };
    const form = new URLSearchParams({ To: data.to?.phno ?? '', From: settingString(provider, 'twilioSenderPhoneNumber'), Body: data.text ?? '' });
    const url = `${this.endpoints.twilio}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`;
    const { answer } = await postTo(
      url,
      { authorization: basicAuth(sid, provider.secrets['twilioAuthToken'] ?? ''), 'content-type': 'application/x-www-form-urlencoded' },
      form.toString(),
      this.timeoutMs,
    );
    return answer;
  }
}
