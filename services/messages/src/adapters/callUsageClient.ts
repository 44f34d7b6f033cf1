import { ApiError, callUsagePath, callUsageSchema } from '@chat/contracts';
import type { CallUsage } from '@chat/contracts';

const TIMEOUT_MS = 5_000;

function unavailable(cause: unknown): ApiError {
  return new ApiError('ERR_SERVICE_UNAVAILABLE', 'The calls service did not answer with the call figures; retry shortly.', {
    retryAfterSeconds: 1,
    cause: String(cause),
  });
}

/**
 * The call figures of `GET /stats`, asked of the calls service (`callUsagePath`, ADR 0064), which owns
 * the call records. Replicas are asked in turn.
 */
export class CallUsageClient {
  private turn = 0;

  constructor(private readonly baseUrls: readonly string[]) {}

  async usage(appId: string, from: number, to: number): Promise<CallUsage> {
    const base = this.baseUrls[this.turn++ % this.baseUrls.length];
    let response: Response;
    try {
      response = await fetch(`${base}${callUsagePath(appId, from, to)}`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      throw unavailable(error);
    }
    if (!response.ok) throw unavailable(`status ${response.status}`);
    return callUsageSchema.parse(await response.json());
  }
}
