/**
 * An event that can never be applied, whatever the state of the infrastructure: its payload breaks a
 * projection's assumptions, so retrying it would fail forever. Consumers dead-letter such an event
 * (and only such an event); every other failure is treated as an outage and retried.
 */
export class UnapplicableEventError extends Error {
  override readonly name = 'UnapplicableEventError';

  constructor(
    readonly eventId: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`event ${eventId} cannot be applied: ${reason}`, options);
  }
}

export function isUnapplicableEventError(error: unknown): error is UnapplicableEventError {
  return error instanceof UnapplicableEventError;
}
