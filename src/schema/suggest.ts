import { closest, distance } from 'fastest-levenshtein';

/**
 * The known name a misspelt one was probably meant to be (`topologgy` → `topology`), or null
 * when none is near: at most max(2, a third of its length) edits, case ignored. Config keys
 * and CLI flags both suggest with it.
 */
export function nearestName(word: string, known: readonly string[]): string | null {
  if (known.length === 0) return null;
  const near = closest(word, [...known]);
  return distance(word.toLowerCase(), near.toLowerCase()) <= Math.max(2, Math.floor(word.length / 3)) ? near : null;
}
