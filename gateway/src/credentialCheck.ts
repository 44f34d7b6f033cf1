import type { IncomingMessage } from 'node:http';
import type { ApiKeyIdentity } from '@chat/contracts';
import { counter } from '@chat/http';
import { sha256Hex } from './auth.js';
import { clientSource } from './clientSource.js';
import type { ProxyAddresses } from './clientSource.js';
import type { FailureBudget } from './failureBudget.js';
import type { TieredCache } from './tieredCache.js';

/** Failed authentications and attempts refused for too many of them, per kind (`apikey`, `management`). */
export const authFailureCounter = () =>
  counter('gateway_auth_failures_total', 'Failed authentications (invalid) and attempts refused for too many of them (limited), per kind.', ['kind', 'outcome']);

/**
 * Resolves a chat call's `apikey` with its source's failure budget in front (ADR 0040). A key this
 * process knows to be real costs nothing and passes even from a refused source (a tenant behind the
 * guesser's NAT keeps working). Any other key holds one of its source's failures while it is looked
 * up, and a source with none left is refused before Redis or management hear of its key.
 */
export class ApiKeyCheck {
  private readonly outcomes = authFailureCounter();

  constructor(
    private readonly keys: TieredCache<ApiKeyIdentity>,
    private readonly failures: FailureBudget,
    private readonly trustedProxies: ProxyAddresses,
  ) {}

  /**
   * Hands `then` the key's identity (null: no such key), now or once looked up, or `failed` the
   * look-up's error. Returns 0, or the seconds the source must wait (and calls neither).
   */
  resolve(
    req: IncomingMessage,
    apiKey: string,
    appId: string,
    then: (identity: ApiKeyIdentity | null) => void,
    failed: (error: unknown) => void,
  ): number {
    const keyHash = sha256Hex(apiKey);
    if (this.keys.holds(keyHash)) {
      const identity = this.keys.get(keyHash);
      if (identity instanceof Promise) identity.then(then, failed);
      else then(identity);
      return 0;
    }
    const source = clientSource(req, this.trustedProxies);
    const retryAfter = this.failures.take(source);
    if (retryAfter > 0) {
      this.outcomes.inc({ kind: 'apikey', outcome: 'limited' });
      return retryAfter;
    }
    const settle = (found: ApiKeyIdentity | null) => {
      if (found !== null && found.appId === appId) this.failures.refund(source);
      else this.outcomes.inc({ kind: 'apikey', outcome: 'invalid' });
      then(found);
    };
    const identity = this.keys.get(keyHash);
    if (identity instanceof Promise) {
      identity.then(settle, (error: unknown) => {
        // Not the source's failure: management could not answer.
        this.failures.refund(source);
        failed(error);
      });
    } else settle(identity);
    return 0;
  }
}
