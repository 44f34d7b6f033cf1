// What a large tenant turns on (issue 23), on an A/B round's app (buildRounds.mjs's startBuildRound): a webhook on
// `message_sent`, a custom push provider with an FCM token for every user of the round's traffic, and a 200-word
// moderation rule, with the loopback receivers shared by every round of a bench. Used by send-path-cpu.mjs (CPU a
// message) and send-latency-ab.mjs (webhook and push latencies) with BENCH_FEATURES=on; the rounds' services need
// `TENANT_URLS_ALLOW_PRIVATE` (FEATURES_ENV) to call loopback.
import { addMessageSentWebhook, startPushProvider, startWebhookReceiver } from './fakeReceivers.mjs';
import { addBlockingKeywordRule, blockedTerms } from './moderationRule.mjs';
import { inParallel } from './traffic.mjs';

/** The services' environment a features-on round needs: its webhook and push calls go to loopback. */
export const FEATURES_ENV = { TENANT_URLS_ALLOW_PRIVATE: '127.0.0.0/8' };

/** The webhook receiver and the push provider every round's app calls; `close()` stops both. */
export async function startFeatureReceivers() {
  const hooks = await startWebhookReceiver();
  const push = await startPushProvider();
  return {
    hooks,
    push,
    async close() {
      await hooks.close();
      await push.close();
    },
  };
}

/**
 * Turns the features on for a round's app (startBuildRound's `beforeWarmUp` argument) before its warm-up, so the
 * warm-up's sends already carry them. `idPrefix` names the webhook and the rule.
 */
export async function addRoundFeatures({ services, appId, apiKey, client, traffic, targets }, receivers, idPrefix) {
  const app = { appId, chat: { appid: appId, apikey: apiKey } };
  const stack = {
    services,
    api: async (method, path, { headers = {}, body } = {}) => {
      const response = await fetch(`${services.gatewayUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(30_000),
      });
      const json = await response.json();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    },
  };
  await addMessageSentWebhook(stack, app, `${idPrefix}-hook`, receivers.hooks.url, 60_000);
  await traffic.must('POST', '/v3/notifications/push/v1/providers/custom', app.chat, { isEnabled: true, webhookURL: receivers.push.url, useBasicAuth: false });
  const users = [...new Set(targets.flatMap((t) => (t.kind === 'user' ? [t.a, t.b] : t.members)))];
  await inParallel(users, 16, async (uid) => {
    const { data } = await traffic.must('POST', `/v3/users/${uid}/auth_tokens`, app.chat, {});
    await traffic.must('POST', '/v3/notifications/push/v1/tokens', app.chat, { platform: 'fcm_android', fcmToken: `${idPrefix}-${uid}`, authToken: data.authToken }, 120_000);
  });
  const pair = targets.find((t) => t.kind === 'user');
  await addBlockingKeywordRule(stack, app, client, { id: `${idPrefix}-words`, terms: blockedTerms(200), sender: pair.a, receiver: pair.b });
}
