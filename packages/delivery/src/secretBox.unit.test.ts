import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox, secretKeysProblem } from './secretBox.js';

const keyA = 'ab'.repeat(32);
const keyB = 'cd'.repeat(32);

/** The id-less form sealed before key ids (what event stores already hold), built independently of the box. */
function legacySeal(hexKey: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(hexKey, 'hex'), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

/** Flips one bit of a sealed value's payload, keeping its form. */
function tampered(sealed: string, at: number): string {
  const [version, kid, payload] = sealed.split('.');
  const raw = Buffer.from(payload!, 'base64url');
  raw[at]! ^= 1;
  return `${version}.${kid}.${raw.toString('base64url')}`;
}

describe('SecretBox', () => {
  const box = new SecretBox(keyA);

  it('opens what it sealed, seals the same text differently each time, and names its key', () => {
    const sealed = box.seal('whsec_abc');
    expect(sealed).toMatch(/^v2\.[0-9a-f]{8}\.[A-Za-z0-9_-]+$/);
    expect(sealed.split('.')[1]).toBe(box.keyIds[0]);
    expect(sealed).not.toContain('whsec_abc');
    expect(box.open(sealed)).toBe('whsec_abc');
    expect(box.seal('whsec_abc')).not.toBe(sealed);
    expect(box.open(box.seal(''))).toBe('');
  });

  it('seals with key A, rotates to B, and opens both; B alone refuses what A sealed', () => {
    const sealedWithA = box.seal('old secret');
    const rotated = new SecretBox(`${keyB},${keyA}`);
    const sealedWithB = rotated.seal('new secret');
    expect(rotated.keyIds).toEqual([new SecretBox(keyB).keyIds[0], box.keyIds[0]]);
    expect(sealedWithB.split('.')[1]).toBe(rotated.keyIds[0]);
    expect(rotated.open(sealedWithA)).toBe('old secret');
    expect(rotated.open(sealedWithB)).toBe('new secret');
    expect(rotated.isCurrent(sealedWithB)).toBe(true);
    expect(rotated.isCurrent(sealedWithA)).toBe(false);
    expect(() => new SecretBox(keyB).open(sealedWithA)).toThrow(/not in this process's keyring/);
    expect(() => box.open(sealedWithB)).toThrow(/not in this process's keyring/);
  });

  it('opens the legacy id-less form with whichever key of the ring sealed it', () => {
    const legacy = legacySeal(keyA, 'whsec_legacy');
    expect(box.open(legacy)).toBe('whsec_legacy');
    expect(new SecretBox(`${keyB},${keyA}`).open(legacy)).toBe('whsec_legacy');
    expect(() => new SecretBox(keyB).open(legacy)).toThrow(/no key/);
    expect(SecretBox.isSealed(legacy)).toBe(false);
    expect(box.isCurrent(legacy)).toBe(false);
  });

  it('refuses tampered values: payload, tag, iv, swapped key id, truncated, legacy', () => {
    const sealed = box.seal('secret');
    for (const at of [0, 12, 28]) expect(() => box.open(tampered(sealed, at))).toThrow();
    const other = new SecretBox(`${keyB},${keyA}`);
    const [, , payload] = sealed.split('.');
    // The key id is authenticated: the same payload under another id of the ring does not open.
    expect(() => other.open(`v2.${other.keyIds[0]!}.${payload!}`)).toThrow();
    expect(() => box.open(`v2.${box.keyIds[0]!}.AAAA`)).toThrow(/truncated/);
    const legacy = Buffer.from(legacySeal(keyA, 'secret'), 'base64');
    legacy[legacy.length - 1]! ^= 1;
    expect(() => box.open(legacy.toString('base64'))).toThrow();
    expect(() => box.open('Bearer plain-text')).toThrow(/not sealed/);
  });

  it('tells the sealed form from plaintext', () => {
    expect(SecretBox.isSealed(box.seal('x'))).toBe(true);
    expect(SecretBox.isSealed('Bearer abc.def')).toBe(false);
    expect(SecretBox.isSealed('v2.abc')).toBe(false);
  });

  it('refuses malformed keyrings with the reason', () => {
    expect(() => new SecretBox('short')).toThrow(/64 hex/);
    expect(secretKeysProblem(`${keyA},`)).toMatch(/64 hex/);
    expect(secretKeysProblem(`${keyA},${keyA}`)).toMatch(/same key twice/);
    expect(secretKeysProblem(`${keyA}, ${keyB}`)).toBeNull();
  });
});
