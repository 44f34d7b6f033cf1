import { createHmac, randomBytes } from 'node:crypto';

/**
 * CometChat's webhook trigger names this platform can raise, with what raises them. Calls have no
 * trigger here because this deployment has no calls service.
 */
export const webhookTriggers = {
  message_sent: 'A message was sent (not group action messages).',
  message_edited: 'A message was edited.',
  message_deleted: 'A message was deleted.',
  message_reaction_added: 'A reaction was added to a message.',
  message_reaction_removed: 'A reaction was removed from a message.',
  message_delivery_receipt: 'A conversation was marked delivered up to a message.',
  message_read_receipt: 'A conversation was marked read up to a message.',
  group_created: 'A group was created.',
  group_updated: 'A group was updated.',
  group_deleted: 'A group was deleted.',
  group_member_added: 'Members were added to a group.',
  group_member_joined: 'A user joined a group.',
  group_member_left: 'A member left a group.',
  group_member_kicked: 'A member was kicked from a group.',
  group_member_banned: 'A member was banned from a group.',
  group_member_unbanned: 'A user was unbanned from a group.',
  group_member_scope_changed: "A member's scope changed.",
  user_blocked: 'A user blocked other users.',
  user_unblocked: 'A user unblocked other users.',
} as const;

export type WebhookTrigger = keyof typeof webhookTriggers;

export function isWebhookTrigger(name: string): name is WebhookTrigger {
  return Object.hasOwn(webhookTriggers, name);
}

/** Standard Webhooks secrets: `whsec_` + base64 of 24 random bytes; the HMAC key is those bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * The Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 over `id.timestamp.body` (timestamp in
 * epoch seconds), keyed with the secret's decoded bytes.
 */
export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

const PRIVATE_V4: ReadonlyArray<readonly [number, number]> = [
  // [network as a 32-bit number, prefix length]
  [0x00000000, 8], // "this" network
  [0x0a000000, 8], // 10/8
  [0x64400000, 10], // 100.64/10 carrier-grade NAT
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // link-local (cloud metadata lives here)
  [0xac100000, 12], // 172.16/12
  [0xc0a80000, 16], // 192.168/16
  [0xe0000000, 3], // multicast and reserved
];

/** Loopback, link-local, private, unique-local or unspecified: addresses a webhook must not reach by default. */
export function isPrivateAddress(address: string): boolean {
  const ip = address.toLowerCase().replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (mapped) return isPrivateAddress(mapped[1]!);
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(ip);
  if (v4) {
    const value = v4.slice(1).reduce((acc, part) => acc * 256 + Number(part), 0);
    return PRIVATE_V4.some(([network, bits]) => Math.floor(value / 2 ** (32 - bits)) === Math.floor(network / 2 ** (32 - bits)));
  }
  if (!ip.includes(':')) return false;
  return ip === '::' || ip === '::1' || /^f[cd]/.test(ip) || /^fe[89ab]/.test(ip);
}

/**
 * Why a webhook URL is refused, or null: only http(s); and unless private targets are allowed, no
 * host that is a private address literal or a local name. Names that resolve to private addresses
 * are caught again when delivering, after resolution.
 */
export function webhookUrlRefusal(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'webhookURL: must be an absolute http(s) URL.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'webhookURL: only http and https URLs are allowed.';
  if (url.username || url.password) return 'webhookURL: credentials belong in username and password, not in the URL.';
  if (allowPrivate) return null;
  const host = url.hostname.toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal') || isPrivateAddress(host)) {
    return 'webhookURL: private, loopback and link-local addresses are refused on this deployment.';
  }
  return null;
}
