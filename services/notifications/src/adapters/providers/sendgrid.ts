import { postTo, settingString } from './endpoints.js';
import type { OpenProvider, OutgoingNotification, ProviderAdapter, ProviderAnswer, ProviderEndpoints } from './endpoints.js';

/** SendGrid's v3 Mail Send with the app's dynamic template: `POST /v3/mail/send`, Bearer API key. */
export class SendGridProvider implements ProviderAdapter {
  constructor(
    private readonly endpoints: ProviderEndpoints,
    private readonly timeoutMs: number,
  ) {}

  async send(notification: OutgoingNotification, provider: OpenProvider): Promise<ProviderAnswer> {
    const data = (notification.payload['data'] ?? {}) as { to?: { email?: string; name?: string }; subject?: string; messages?: unknown[] };
    const group = Number(settingString(provider, 'sendGridUnsubscribeGroupID'));
    const replyTo = settingString(provider, 'senderEmailForReplies');
    const mail = {
      personalizations: [
        {
          to: [{ email: data.to?.email ?? '', ...(data.to?.name ? { name: data.to.name } : {}) }],
          dynamic_template_data: { subject: data.subject ?? '', messages: data.messages ?? [], to: data.to ?? {} },
        },
      ],
      from: { email: settingString(provider, 'senderEmail'), name: settingString(provider, 'senderName') },
      template_id: settingString(provider, 'sendGridTemplateID'),
      ...(Number.isInteger(group) && group > 0 ? { asm: { group_id: group } } : {}),
      ...(provider.settings['allowEmailReplies'] === true && replyTo ? { reply_to: { email: replyTo } } : {}),
    };
    const { answer } = await postTo(
      `${this.endpoints.sendgrid}/v3/mail/send`,
      { authorization: `Bearer ${provider.secrets['sendGridApiKey'] ?? ''}`, 'content-type': 'application/json' },
      JSON.stringify(mail),
      this.timeoutMs,
    );
    return answer;
  }
}
