import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * AES-256-GCM with keys from configuration, for every secret a tenant configures (webhook secrets and
 * Basic-Auth passwords, notification provider credentials, BYO agent headers): what a service stores
 * and publishes is useless without the key, which only the processes that seal or open it hold.
 *
 * The key setting is a keyring, `<hex>[,<hex>…]` of 64-hex-character keys: the first seals, all open,
 * so a key is rotated by putting a new one in front and dropping the old one once nothing sealed with
 * it is left (ADR 0039). A key's id is derived from the key itself, so two keys can never share an id
 * and an operator never has to keep ids and keys in step.
 *
 * Sealed form: `v2.<key id>.<base64url of iv(12) | tag(16) | ciphertext>`, the `v2.<key id>` prefix
 * authenticated with the ciphertext. The id-less form of before (standard base64 of the same three
 * parts; it never contains a dot) still opens, with whichever key of the ring it was sealed with.
 */
const KEY_PATTERN = /^[0-9a-f]{64}$/i;
const SEALED_PATTERN = /^v2\.([0-9a-f]{8})\.([A-Za-z0-9_-]+)$/;
const LEGACY_PATTERN = /^[A-Za-z0-9+/]+={0,2}$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;

interface RingKey {
  id: string;
  key: Buffer;
}

/** A key's id: a short HMAC of a fixed label under the key, which says nothing about the key. */
function keyIdOf(key: Buffer): string {
  return createHmac('sha256', key).update('chat secret box key id').digest('hex').slice(0, 8);
}

function ringOf(setting: string): RingKey[] {
  const parts = setting.split(',').map((part) => part.trim());
  if (parts.some((part) => !KEY_PATTERN.test(part))) {
    throw new Error('must be one or more comma-separated keys of 64 hex characters (32 bytes), the sealing key first');
  }
  const ring = parts.map((hex) => {
    const key = Buffer.from(hex, 'hex');
    return { id: keyIdOf(key), key };
  });
  if (new Set(ring.map((k) => k.id)).size !== ring.length) throw new Error('names the same key twice');
  return ring;
}

/** Why a keyring setting is refused, or null: for the services' configuration schemas. */
export function secretKeysProblem(setting: string): string | null {
  try {
    ringOf(setting);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** A configuration field holding a keyring (one way to check it in every service that seals). */
export const secretKeysSetting = z.string().superRefine((value, ctx) => {
  const problem = secretKeysProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

export class SecretBox {
  private readonly ring: readonly RingKey[];
  private readonly byId: ReadonlyMap<string, Buffer>;

  /** `setting`: the keyring as configured, `<sealing key hex>[,<older key hex>…]`. */
  constructor(setting: string) {
    try {
      this.ring = ringOf(setting);
    } catch (error) {
      throw new Error(`the secrets key ${(error as Error).message}`);
    }
    this.byId = new Map(this.ring.map((k) => [k.id, k.key]));
  }

  /** The ids of the ring's keys, the sealing key's first: what a start-up log may show. */
  get keyIds(): readonly string[] {
    return this.ring.map((k) => k.id);
  }

  /** Whether `value` has the sealed form (any key id); plaintext stored before sealing does not. */
  static isSealed(value: string): boolean {
    return SEALED_PATTERN.test(value);
  }

  seal(plain: string): string {
    const current = this.ring[0]!;
    const header = `v2.${current.id}`;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', current.key, iv);
    cipher.setAAD(Buffer.from(header));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${header}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** The plaintext; throws for a tampered value, an unknown key id or a value in neither form. */
  open(sealed: string): string {
    const match = SEALED_PATTERN.exec(sealed);
    if (match) {
      const key = this.byId.get(match[1]!);
      if (!key) throw new Error(`the value was sealed with key ${match[1]!}, which is not in this process's keyring`);
      return decrypt(key, Buffer.from(match[2]!, 'base64url'), Buffer.from(`v2.${match[1]!}`));
    }
    if (!LEGACY_PATTERN.test(sealed)) throw new Error('the value is not sealed');
    // Sealed before key ids: whichever key of the ring authenticates it sealed it.
    const raw = Buffer.from(sealed, 'base64');
    for (const { key } of this.ring) {
      try {
        return decrypt(key, raw, null);
      } catch {
        // not this key
      }
    }
    throw new Error('no key of this keyring opens the value');
  }

  /** Whether `sealed` is sealed with the current sealing key (false: reseal it before dropping an old key). */
  isCurrent(sealed: string): boolean {
    return SEALED_PATTERN.exec(sealed)?.[1] === this.ring[0]!.id;
  }
}

function decrypt(key: Buffer, raw: Buffer, aad: Buffer | null): string {
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('the sealed value is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
  if (aad) decipher.setAAD(aad);
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}
