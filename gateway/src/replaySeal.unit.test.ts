import { describe, expect, it } from 'vitest';
import { openReplay, replayKey, sealReplay } from './replaySeal.js';

const scope = { appId: 'app1', keyId: 'key1', idempotencyKey: '5f0c6a1e-2b7d-4c11-9a57-0e4f3c2b1a90' };
const answer = Buffer.from(JSON.stringify({ status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"data":{"authToken":"tok_abc123"}}').toString('base64') }));
const context = 'gateway:idem:app1:key1:digest';

describe('sealed Idempotency-Key answers', () => {
  it('opens for the same Idempotency-Key, app and API key; holds neither the answer nor its base64', () => {
    const sealed = sealReplay(replayKey(scope), answer, context);
    expect(openReplay(replayKey({ ...scope }), sealed, context)).toEqual(answer);
    expect(sealed).not.toContain('tok_abc123');
    expect(sealed).not.toContain(Buffer.from('tok_abc123').toString('base64').slice(0, 12));
    expect(sealed).not.toContain(answer.toString('base64').slice(0, 24));
    expect(sealReplay(replayKey(scope), answer, context)).not.toBe(sealed);
  });

  it('does not open with another Idempotency-Key, app, API key or store key, nor when altered', () => {
    const sealed = sealReplay(replayKey(scope), answer, context);
    for (const other of [{ idempotencyKey: `${scope.idempotencyKey}x` }, { appId: 'app2' }, { keyId: 'key2' }]) {
      expect(() => openReplay(replayKey({ ...scope, ...other }), sealed, context)).toThrow();
    }
    expect(() => openReplay(replayKey(scope), sealed, `${context}x`)).toThrow();
    const raw = Buffer.from(sealed, 'base64url');
    raw[raw.length - 1]! ^= 1;
    expect(() => openReplay(replayKey(scope), raw.toString('base64url'), context)).toThrow();
    expect(() => openReplay(replayKey(scope), 'AAAA', context)).toThrow(/truncated/);
  });

  it('app and API key cannot run together into another identity', () => {
    expect(replayKey({ ...scope, appId: 'a', keyId: 'b\nc' })).not.toEqual(replayKey({ ...scope, appId: 'a\nb', keyId: 'c' }));
  });
});
