import type { IncomingMessage } from 'node:http';
import { counter } from '@chat/http';
import { clientSource } from './clientSource.js';
import type { ProxyAddresses } from './clientSource.js';
import type { FailureBudget } from './failureBudget.js';

/** Failed authentications and attempts refused for too many of them, per kind (`apikey`, `authtoken`, `management`). */
export const authFailureCounter = () =>
  counter('gateway_auth_failures_total', 'Failed authentications (invalid) and attempts refused for too many of them (limited), per kind.', ['kind', 'outcome']);

/** Where a kind of credential is known, by its id (a hash of it): what a `TieredCache` offers. */
export interface CredentialSource<V> {
  /** Whether this process knew the id to be real when it last looked (no I/O). */
  holds(id: string): boolean;
  get(id: string): V | null | Promise<V | null>;
}

/** One kind of credential: where it is known, and whether what was found authenticates this call. */
export interface CredentialKind<V> {
  name: 'apikey' | 'authtoken';
  source: CredentialSource<V>;
}

/**
 * Resolves a chat call's credential (an `apikey`, or a user's `authtoken`) with its source's failure
 * budget in front (ADR 0040): one budget per client address for every kind, so a guesser cannot spread
 * its guesses over two. A credential this process knows to be real costs nothing and passes even from
 * a refused source (a tenant behind the guesser's NAT keeps working). Any other holds one of its
 * source's failures while it is looked up, and a source with none left is refused before Redis or the
 * owning service hear of it.
 */
export class CredentialCheck {
  private readonly outcomes = authFailureCounter();

  constructor(
    private readonly failures: FailureBudget,
    private readonly trustedProxies: ProxyAddresses,
  ) {}

  /**
   * Hands `then` what the credential `id` names (null: nothing), now or once looked up, or `failed` the
   * look-up's error; `valid` says whether the finding authenticates this call (an API key of another
   * app does not). Returns 0, or the seconds the source must wait (and calls neither).
   */
  resolve<V>(
    req: IncomingMessage,
    kind: CredentialKind<V>,
    id: string,
    valid: (found: V | null) => boolean,
    then: (found: V | null) => void,
    failed: (error: unknown) => void,
  ): number {
    if (kind.source.holds(id)) {
      const found = kind.source.get(id);
      if (found instanceof Promise) found.then(then, failed);
      else then(found);
      return 0;
    }
    const source = clientSource(req, this.trustedProxies);
    const retryAfter = this.failures.take(source);
    if (retryAfter > 0) {
      this.outcomes.inc({ kind: kind.name, outcome: 'limited' });
      return retryAfter;
    }
    const settle = (found: V | null) => {
      if (valid(found)) this.failures.refund(source);
      else this.outcomes.inc({ kind: kind.name, outcome: 'invalid' });
      then(found);
    };
    const found = kind.source.get(id);
    if (found instanceof Promise) {
      found.then(settle, (error: unknown) => {
        // Not the source's failure: the owning service could not answer.
        this.failures.refund(source);
        failed(error);
      });
    } else settle(found);
    return 0;
  }
}
