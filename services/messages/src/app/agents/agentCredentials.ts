import { SecretBox } from '@chat/delivery';

export type AgentHeaders = Readonly<Record<string, string>>;

/**
 * A BYO agent's header values are credentials (`Authorization: Bearer …`). They are sealed before the
 * `AgentSaved` event is appended, so the event store, the read model and `chat.messages.events` hold
 * only sealed values, and opened only when the agent is called (ADR 0039). Values stored before
 * sealing existed are plaintext: they are still sent as they are, and sealed when the agent is next
 * saved.
 */
export class AgentCredentials {
  constructor(private readonly box: SecretBox) {}

  seal(headers: AgentHeaders): Record<string, string> {
    return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, this.box.seal(value)]));
  }

  /** The values to send: opened, or as stored when stored before sealing. Throws for a tampered value. */
  open(headers: AgentHeaders): Record<string, string> {
    return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, SecretBox.isSealed(value) ? this.box.open(value) : value]));
  }

  /**
   * The stored headers sealed with the current key, or null when they already are: a save that does
   * not change the headers reseals plaintext ones and those sealed with a key being rotated out.
   */
  resealed(stored: AgentHeaders): Record<string, string> | null {
    const values = Object.values(stored);
    if (values.every((value) => this.box.isCurrent(value))) return null;
    return this.seal(this.open(stored));
  }
}
