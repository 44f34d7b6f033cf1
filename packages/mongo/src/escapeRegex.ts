/**
 * The text as a pattern that matches it literally: a user's search key inside a `$regex` filter must
 * not act as a pattern (`a.b`, `(`), and the same goes for a path or a name built into a RegExp.
 */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
