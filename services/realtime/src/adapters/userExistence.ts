import { internalPaths, userExistenceSchema } from '@chat/contracts';

const TIMEOUT_MS = 2_000;

/**
 * Whether an app has a user, asked of the users service that owns users (`internalPaths.userExists`,
 * answered there from the memory its role look-ups use): realtime's read-through for a typing notice's
 * one-on-one receiver, instead of a copy of every user of every app written on each `UserCreated`
 * (ADR 0101). Replicas are asked in turn; one that does not answer is passed over once. A failure is
 * thrown (the typing frame is answered `ERR_TRY_AGAIN`), never taken for "no such user".
 */
export class UserExistenceClient {
  private turn = 0;

  constructor(private readonly baseUrls: readonly string[]) {
    if (baseUrls.length === 0) throw new Error('the users service needs at least one origin (USERS_URL)');
  }

  async exists(appId: string, uid: string): Promise<boolean> {
    const first = this.turn++ % this.baseUrls.length;
    const attempts = Math.min(2, this.baseUrls.length);
    let failure: unknown;
    for (let i = 0; i < attempts; i++) {
      try {
        return await this.ask(this.baseUrls[(first + i) % this.baseUrls.length]!, appId, uid);
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  }

  private async ask(base: string, appId: string, uid: string): Promise<boolean> {
    const response = await fetch(`${base}${internalPaths.userExists(appId, uid)}`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (response.status === 404) {
      await response.body?.cancel();
      return false;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`the users service answered ${response.status} to a user look-up`);
    }
    userExistenceSchema.parse(await response.json());
    return true;
  }
}
