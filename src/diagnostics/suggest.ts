// Helpers for the stages that build messages: field paths, and "did you mean" hints.

/** Field paths as people read them: `videos[0].streams[1].url`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/** Longer words get no "did you mean": nobody mistypes them, and the distance is quadratic in length. */
const MAX_SUGGESTED_LENGTH = 256;

/**
 * Characters compared, word by candidate, by the "did you mean" hints of one run: far more than
 * people's mistakes need, and a bound on content made to ask for millions of hints among
 * thousands of long candidates (the distance is quadratic in their lengths).
 */
const SUGGESTION_WORK = 20_000_000;

/** `closest` within a budget of work for a whole run; `candidates` are made only while it lasts. */
export function suggester(work = SUGGESTION_WORK): (word: string, candidates: () => readonly string[], maxDistance?: number) => string | undefined {
  let left = work;
  return (word, candidates, maxDistance) => {
    if (left <= 0 || word.length > MAX_SUGGESTED_LENGTH) return undefined;
    const list = candidates();
    let characters = list.length;
    for (const candidate of list) characters += candidate.length;
    left -= characters * Math.max(1, word.length);
    return left >= 0 ? closest(word, list, maxDistance) : undefined;
  };
}

/**
 * The closest candidate within a small edit distance, for "did you mean" hints: letters added,
 * removed, replaced or two neighbours swapped, case ignored. `maxDistance` narrows the default
 * (2, or a third of the word's length when longer): 1 finds only `movies` for `movie`, `Movie`,
 * `moive`, where a looser match would take a type or genre of one's own for a typo.
 */
export function closest(word: string, candidates: readonly string[], maxDistance?: number): string | undefined {
  if (word.length > MAX_SUGGESTED_LENGTH) return undefined;
  let best: string | undefined;
  let bestDistance = Math.min(maxDistance ?? Infinity, Math.max(2, Math.floor(word.length / 3))) + 1;
  const lower = word.toLowerCase();
  for (const candidate of candidates) {
    // The distance is at least the difference in length: no need to work it out.
    if (Math.abs(candidate.length - word.length) >= bestDistance) continue;
    const d = editDistance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** Optimal string alignment (Damerau-Levenshtein without edits of a swapped pair): `moive` is one from `movie`. */
function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) current[j] = Math.min(current[j]!, before[j - 2]! + 1);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}
