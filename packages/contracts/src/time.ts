/** CometChat timestamps are whole seconds since the epoch. */
export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
