import { describe, expect, it } from 'vitest';
import { API_KEY_PATTERN, hashApiKey, keyIdOf, keyRefFromParam, maskApiKey, mintApiKey, newAppId } from './keys.js';
import { APP_ID_PATTERN } from '@chat/contracts';

describe('api key material', () => {
  it('mints a 40-hex key and keeps only its hash, id and mask', () => {
    const { apiKey, record } = mintApiKey('Rest API Key', 'fullAccess', 'app_system');
    expect(apiKey).toMatch(API_KEY_PATTERN);
    expect(record.keyHash).toBe(hashApiKey(apiKey));
    expect(record.keyId).toBe(record.keyHash.slice(0, 16));
    expect(record.maskedKey).toBe(`${apiKey.slice(0, 4)}…${apiKey.slice(36)}`);
    expect(JSON.stringify(record)).not.toContain(apiKey);
  });

  it('hashes with SHA-256 hex', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(keyIdOf(hashApiKey('abc'))).toBe('ba7816bf8f01cfea');
  });

  it('masks like f191…3fbf', () => {
    expect(maskApiKey('f1915e328e249ffaaafd97fb46a57ba55d233fbf')).toBe('f191…3fbf');
  });

  it('generates app ids the platform accepts', () => {
    expect(newAppId()).toMatch(/^[0-9a-f]{16}$/);
    expect(newAppId()).toMatch(APP_ID_PATTERN);
  });

  it('resolves the path parameter from a full key, a key id or the masked key a list shows', () => {
    const full = 'f1915e328e249ffaaafd97fb46a57ba55d233fbf';
    const hash = hashApiKey(full);
    expect(keyRefFromParam(full)).toEqual({ keyId: hash.slice(0, 16), keyHash: hash });
    expect(keyRefFromParam(hash.slice(0, 16))).toEqual({ keyId: hash.slice(0, 16) });
    expect(keyRefFromParam('f191…3fbf')).toEqual({ maskedKey: 'f191…3fbf' });
    expect(keyRefFromParam('f191...3fbf')).toEqual({ maskedKey: 'f191…3fbf' });
    expect(keyRefFromParam('f191…3fb')).toBeNull();
    expect(keyRefFromParam(full.toUpperCase())).toBeNull();
    expect(keyRefFromParam('__proto__')).toBeNull();
  });
});
