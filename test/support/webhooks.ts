import type { ApiResponse, TestApp } from './api.js';
import { call, eventually, managementHeaders } from './api.js';

export interface CreatedWebhook {
  id: string;
  secret: string;
}

export function manage(method: string, path: string, body?: unknown): Promise<ApiResponse> {
  return call(method, path, { headers: managementHeaders(), ...(body !== undefined ? { body } : {}) });
}

/**
 * Creates a webhook with triggers and waits until the delivery process knows it with those
 * triggers (it learns webhooks from management's events, a moment after the API answered).
 */
export async function createWebhook(
  app: TestApp,
  id: string,
  url: string,
  triggers: string[],
  extra: Record<string, unknown> = {},
): Promise<CreatedWebhook> {
  const created = await manage('POST', `/apps/${app.appId}/webhooks`, { id, name: id, webhookURL: url, ...extra });
  if (created.status !== 200) throw new Error(`create webhook: ${created.status} ${JSON.stringify(created.body)}`);
  if (triggers.length > 0) {
    const added = await manage('POST', `/apps/${app.appId}/webhooks/${id}/triggers`, { triggerIds: triggers });
    if (added.status !== 200) throw new Error(`add triggers: ${added.status} ${JSON.stringify(added.body)}`);
  }
  await deliveryProcessKnows(app, id, (webhook) => triggers.every((t) => webhook.triggers.includes(t)));
  return { id, secret: created.body.data.signingSecret as string };
}

export async function deliveryProcessKnows(
  app: TestApp,
  webhookId: string,
  check: (webhook: { enabled: boolean; triggers: string[] }) => boolean,
): Promise<void> {
  const known = await eventually(
    () => deliveries(app, webhookId),
    (r) => r.status === 200 && check(r.body.meta.webhook),
  );
  if (known.status !== 200 || !check(known.body.meta.webhook)) {
    throw new Error(`the delivery process never saw webhook ${webhookId}: ${JSON.stringify(known.body)}`);
  }
}

export function deliveries(app: TestApp, webhookId: string, query = ''): Promise<ApiResponse> {
  return manage('GET', `/apps/${app.appId}/webhooks/${webhookId}/deliveries${query}`);
}
