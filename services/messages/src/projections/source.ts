/**
 * The guard source of an event: its stream. Versions are ordered only within one stream, and the
 * same document may hear from several (a user's profile and, say, a separate block-list stream), so
 * each stream keeps its own position. Stream ids are `kind:appId:id`; FerretDB rejects `.` and `$` in
 * field names, which uids and guids cannot contain, but they are replaced to be safe.
 */
export function sourceOfStream(streamId: string): string {
  return streamId.replace(/[.$]/g, '_');
}
