/**
 * Turns per document within one process: a batch waits until the earlier batches that touch any of
 * its documents are done, and holds its documents until it releases them. A batch queues behind the
 * batches that asked before it only, so the waits form no cycle. Turns only order work; the writers'
 * own guards still decide what is written.
 */
export class DocumentTurns {
  /** Per document, the batch that holds its turn (the latest to ask for it). */
  private readonly holders = new Map<string, Promise<void>>();

  async take(ids: readonly string[]): Promise<() => void> {
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const earlier = new Set<Promise<void>>();
    for (const id of ids) {
      const holder = this.holders.get(id);
      if (holder) earlier.add(holder);
      this.holders.set(id, mine);
    }
    if (earlier.size > 0) await Promise.all(earlier);
    return () => {
      release();
      for (const id of ids) if (this.holders.get(id) === mine) this.holders.delete(id);
    };
  }
}
