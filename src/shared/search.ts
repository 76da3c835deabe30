// Search: which items answer a query, in which order, and which queries a static host gets files
// for. One definition for the files plan writes and for the answers serve computes, so that the
// preview ranks exactly as the published files do (README, "Search").
import { fileNameProblem } from './paths.js';

/** A word: a letter or digit, then letters, digits and the marks that go with them. */
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;
/**
 * Accents: the combining diacritics that decomposing a Latin, Greek or Cyrillic letter gives
 * (`é` -> `e` and U+0301). Not every mark: the vowel signs of Indic scripts are marks too, and
 * dropping them would make other words of them (`काल` found by `कल`).
 */
const ACCENTS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/gu;

/** Text without its accents, composed again (`Amélie` -> `Amelie`). */
function withoutAccents(text: string): string {
  return text.normalize('NFD').replace(ACCENTS, '').normalize('NFC');
}

/** Text as search compares it: lower case, accents dropped (`Amélie` -> `amelie`). */
export function foldText(text: string): string {
  return withoutAccents(text).toLowerCase();
}

/** The words of a text as written (`Ocean's Eleven` -> `Ocean`, `s`, `Eleven`). */
export function wordsOf(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** The folded words of a text, as search compares them. */
export function foldedWords(text: string): string[] {
  return wordsOf(foldText(text));
}

/**
 * A catalog's items as search finds them: each name's folded words, and for each word the items
 * that have it, so that a query looks at the items of its rarest word only.
 */
export class SearchIndex<T> {
  private readonly entries: { item: T; words: readonly string[]; phrase: string }[] = [];
  private readonly postings = new Map<string, number[]>();

  /** `items` in catalog order, the order that breaks ties. */
  constructor(items: Iterable<T>, nameOf: (item: T) => string) {
    for (const item of items) {
      const words = foldedWords(nameOf(item));
      const index = this.entries.push({ item, words, phrase: words.join(' ') }) - 1;
      for (const word of words) {
        const list = this.postings.get(word);
        if (!list) this.postings.set(word, [index]);
        else if (list[list.length - 1] !== index) list.push(index);
      }
    }
  }

  /**
   * The items that answer `query`, best first: those whose name holds every word of the query
   * (case and accents aside); among them, whole-name matches first, then names with more words
   * from the query (a word counted each time the name has it), then the catalog's order. A
   * query without words answers nothing.
   */
  results(query: string): T[] {
    const words = foldedWords(query);
    const asked = new Set(words);
    let rarest: number[] | undefined;
    for (const word of asked) {
      const list = this.postings.get(word);
      if (!list) return [];
      if (!rarest || list.length < rarest.length) rarest = list;
    }
    if (!rarest) return [];
    const phrase = words.join(' ');
    const ranked: { item: T; whole: boolean; hits: number; order: number }[] = [];
    for (const order of rarest) {
      const entry = this.entries[order]!;
      let hits = 0;
      const found = new Set<string>();
      for (const word of entry.words) {
        if (!asked.has(word)) continue;
        hits++;
        found.add(word);
      }
      if (found.size === asked.size) ranked.push({ item: entry.item, whole: entry.phrase === phrase, hits, order });
    }
    ranked.sort((a, b) => Number(b.whole) - Number(a.whole) || b.hits - a.hits || a.order - b.order);
    return ranked.map((r) => r.item);
  }
}

/** Which queries a catalog gets result files for (`searchQueries` in addon.yaml). */
export type SearchQueries = 'all' | 'words' | 'names';

/**
 * The queries a static host gets a file for, from one name: each word and the whole name, each
 * as written and in lower case, and each of those without accents where that differs. A query
 * that cannot end a file name on every host (a `/`, `\\`, `?`, `#` or `%`, a control character,
 * over 200 bytes: a title in a script written without spaces is one long word) has none: serve
 * still answers it, a static host does not.
 */
export function fileQueries(name: string, which: SearchQueries, into: Set<string>): void {
  const add = (query: string) => {
    for (const spelling of spellings(query)) if (isFileQuery(spelling)) into.add(spelling);
  };
  if (which !== 'names') for (const word of wordsOf(name)) add(word);
  if (which !== 'words' && wordsOf(name).length > 0) add(name.trim());
}

/** A query as written, in lower case, and both without accents: the distinct ones. */
function spellings(query: string): string[] {
  const written = query.normalize('NFC');
  const lower = written.toLowerCase();
  return [...new Set([written, lower, withoutAccents(written), withoutAccents(lower)])];
}

/** Whether a query can be the end of a file name on every host the build writes for. */
function isFileQuery(query: string): boolean {
  return fileNameProblem(query, false) === undefined && !/[?#%]/.test(query);
}
