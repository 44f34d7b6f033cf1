/**
 * The users a typing notice may go to, asked of the users service that owns them (ADR 0101) and
 * remembered once found, so a conversation's typing costs one look-up per receiver and replica. A user
 * not found is asked again next time (it may be created a moment later); a deletion the replica sees on
 * the users topic forgets the user, and an answer asked before a deletion was seen is not remembered.
 */
export class KnownUsers {
  private readonly known = new Set<string>();
  /** Deletions seen so far: an answer to a question asked before the latest one may be stale. */
  private deletions = 0;

  constructor(
    private readonly ask: (appId: string, uid: string) => Promise<boolean>,
    private readonly capacity: number,
  ) {}

  async exists(appId: string, uid: string): Promise<boolean> {
    const key = `${appId}\n${uid}`;
    if (this.known.has(key)) return true;
    const asked = this.deletions;
    const exists = await this.ask(appId, uid);
    if (exists && asked === this.deletions) {
      if (this.known.size >= this.capacity) this.known.clear();
      this.known.add(key);
    }
    return exists;
  }

  /** The user was deleted: the next typing notice to the uid asks again. */
  forget(appId: string, uid: string): void {
    this.deletions += 1;
    this.known.delete(`${appId}\n${uid}`);
  }
}
