/**
 * `compute` with its answers kept per key, at most `capacity` of them: past that the kept answers start
 * afresh. For per-call work on values a tenant configures and a process sees few of (webhook and
 * provider URLs, signing secrets), called over and over on the delivery path (ADR 0090).
 */
export function keptAnswers<K, V>(capacity: number, compute: (key: K) => V): (key: K) => V {
  const kept = new Map<K, V>();
  return (key) => {
    if (kept.has(key)) return kept.get(key) as V;
    const answer = compute(key);
    if (kept.size >= capacity) kept.clear();
    kept.set(key, answer);
    return answer;
  };
}
