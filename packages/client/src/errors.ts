/**
 * An answer of the API that was not a success, with CometChat's `{error: {code, message}}`. `status`
 * is the HTTP status (0 when no answer came); `code` is CometChat's (`ERR_…`, `AUTH_ERR_…`), or
 * `ERR_NETWORK` / `ERR_UNEXPECTED_RESPONSE` when the failure had none.
 */
export class ChatApiError extends Error {
  override readonly name = 'ChatApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** The error an answer's body names, or a generic one for a body that is not CometChat's error shape. */
  static fromResponse(status: number, body: unknown): ChatApiError {
    const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
    if (typeof error === 'object' && error !== null) {
      const { code, message, ...details } = error as Record<string, unknown>;
      if (typeof code === 'string') {
        return new ChatApiError(status, code, typeof message === 'string' ? message : code, Object.keys(details).length > 0 ? details : undefined);
      }
    }
    return new ChatApiError(status, 'ERR_UNEXPECTED_RESPONSE', `The server answered ${status} without an error body.`);
  }
}
