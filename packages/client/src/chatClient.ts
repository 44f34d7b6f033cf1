import { RealtimeConnection } from './realtimeConnection.js';
import type { RealtimeOptions } from './realtimeConnection.js';
import { ChatRestClient } from './rest.js';
import type { ChatMessage, RestOptions, SendMessageInput } from './rest.js';

export type ChatClientOptions = RestOptions & Omit<RealtimeOptions, 'baseUrl' | 'appId' | 'authToken' | 'fetch'>;

/**
 * A user's client: the REST calls, and `connect()` for the realtime channel with the same host, app
 * and token. Sending a message ends the user's typing in that conversation.
 */
export class ChatClient extends ChatRestClient {
  readonly #options: ChatClientOptions;
  #connection: RealtimeConnection | undefined;

  constructor(options: ChatClientOptions) {
    super(options);
    this.#options = options;
  }

  /** The realtime connection (one per client), connected; add listeners with `on` before frames arrive. */
  connect(): RealtimeConnection {
    if (!this.#connection || this.#connection.state === 'closed') this.#connection = new RealtimeConnection(this.#options);
    // Connecting waits for the next turn of the event loop, so listeners added now see the first frames.
    return this.#connection.connect();
  }

  get connection(): RealtimeConnection | undefined {
    return this.#connection;
  }

  override async sendMessage(input: SendMessageInput): Promise<ChatMessage> {
    this.#connection?.stopTyping(input);
    return super.sendMessage(input);
  }

  close(): void {
    this.#connection?.close();
  }
}
