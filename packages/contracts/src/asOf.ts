import { decodeConsistencyToken } from './consistencyToken.js';
import { ApiError } from './errors.js';

/**
 * Time-travel reads (beyond CometChat): `?asOf=` names a past state, either a consistency token a write
 * answered (the state right after that write) or a time, in epoch seconds or milliseconds.
 */
const AS_OF_PARAMETER = 'asOf';

/** Below this an epoch number is read as seconds (CometChat's unit), from it on as milliseconds (year 5138 in seconds). */
const MILLISECONDS_FROM = 100_000_000_000;

export type AsOf = { kind: 'time'; at: number } | { kind: 'token'; positions: ReadonlyMap<string, number> };

function refuse(problem: string): never {
  throw new ApiError('ERR_BAD_REQUEST', `${AS_OF_PARAMETER}: ${problem}`, { fields: [{ field: AS_OF_PARAMETER, problem }] });
}

/**
 * The app a stream belongs to: every chat stream id is `<kind>:<appId>[:…]` (`conversationLogStreamId`,
 * `user:…`, `group:…`); null for one that names no app.
 */
function appOfStream(streamId: string): string | null {
  const [, appId] = streamId.split(':');
  return appId === undefined || appId === '' ? null : appId;
}

/**
 * Reads `asOf` for `appId` at `now` (ms). Refused with 400: not a number or a token this API issued,
 * a time in the future, a token of another app.
 */
export function parseAsOf(raw: unknown, appId: string, now: number): AsOf {
  if (typeof raw !== 'string' || raw === '') refuse('give one consistency token or one epoch time');
  if (/^\d{1,16}$/.test(raw)) {
    const value = Number(raw);
    const at = value < MILLISECONDS_FROM ? value * 1_000 : value;
    if (at > now) refuse('the time is in the future; the log holds only what already happened');
    return { kind: 'time', at };
  }
  const positions = decodeConsistencyToken(raw);
  if (!positions) refuse('neither an epoch time nor a consistency token this API issued');
  if ([...positions.keys()].some((streamId) => appOfStream(streamId) !== appId)) refuse('the consistency token is another app’s');
  return { kind: 'token', positions };
}

/** How the OpenAPI description explains the parameter. */
export const AS_OF_DESCRIPTION =
  'Ours, beyond CometChat: the state as of a consistency token (x-consistency-token of a write) or an epoch time in seconds or milliseconds, rebuilt from the event log (docs/behaviour/time-travel.md).';
