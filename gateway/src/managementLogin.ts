import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { ManagementCredentials, Refusal } from './auth.js';
import { clientSource } from './clientSource.js';
import type { ProxyAddresses } from './clientSource.js';
import type { FailureBudget } from './failureBudget.js';

export interface LoginRefusal {
  refusal: Refusal;
  /** Set when the source used up its failures: the answer is 429 with this Retry-After. */
  retryAfter?: number;
}

/**
 * The management `key`/`secret` check with a failure budget per source in front of it: a source that
 * failed too often is refused before its guess is compared, so the budget bounds guesses, not just
 * answers; every failed login is logged with its source (never what was sent).
 */
export class ManagementLogin {
  constructor(
    private readonly credentials: ManagementCredentials,
    private readonly failures: FailureBudget,
    private readonly trustedProxies: ProxyAddresses,
    private readonly logger: Logger,
    private readonly onFailure: (outcome: 'invalid' | 'limited') => void,
  ) {}

  check(req: IncomingMessage, key: string | undefined, secret: string | undefined, requestId: string): LoginRefusal | null {
    const source = clientSource(req, this.trustedProxies);
    const retryAfter = this.failures.retryAfter(source);
    if (retryAfter > 0) {
      this.onFailure('limited');
      return {
        refusal: { code: 'ERR_TOO_MANY_REQUESTS', message: `Too many failed management logins from this address; retry in ${retryAfter} s.` },
        retryAfter,
      };
    }
    const refusal = this.credentials.check(key, secret);
    if (refusal?.code === 'AUTH_ERR_INVALID_CREDENTIALS') {
      this.failures.fail(source);
      this.onFailure('invalid');
      this.logger.warn({ source, requestId, method: req.method, path: req.url?.split('?', 1)[0] }, 'management login failed');
    }
    return refusal ? { refusal } : null;
  }
}
