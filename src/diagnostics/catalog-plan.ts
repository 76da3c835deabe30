// The catalog's words for the codes of plan and build: the output as a whole, its files, the
// hosts it is published on, and the summary of a file's problems.
import { byteSize, OUTPUT_LIMIT } from '../shared/output-limit.js';
import type { CatalogEntry } from './catalog.js';
import type { Severity } from './codes.js';

const count = (n: number) => n.toLocaleString('en-US');
const error: Severity = 'error';
const warning: Severity = 'warning';

/** Files and bytes of the output, or of a part of it. */
export interface Size {
  files: number;
  bytes: number;
}

/** What contributes most of an output that is too large, as output-too-large names it. */
export type LargestSource =
  | { kind: 'catalog'; size: Size; genres: number; queries: number }
  | { kind: 'listed'; pages: number; bytes: number; preview: number; genres: number; links: boolean }
  | { kind: 'own'; size: Size }
  | { kind: 'manifest' };

/** output-too-large: the catalogs would list too many items, or the plan would write too much. */
export type OutputTooLarge =
  | { kind: 'listings'; catalogs: number; listings: number; input: number; limit: number; largest: number }
  | { kind: 'output'; size: Size; input: number; limit: Size; overBytes: boolean; source: LargestSource };

function outputTooLarge(p: OutputTooLarge): string {
  if (p.kind === 'listings') {
    return `the ${count(p.catalogs)} catalogs would list items ${count(p.listings)} times, from ${byteSize(p.input)} of content: over the ${count(p.limit)} listings a build may make for it (${OUTPUT_LIMIT.listingsPerByte} per byte of content, and never less than ${count(OUTPUT_LIMIT.floorListings)}); this catalog lists ${count(p.largest)} items`;
  }
  const over = p.overBytes
    ? `over the ${byteSize(p.limit.bytes)} a build may write for it (${count(OUTPUT_LIMIT.factor)} times the content, and never less than ${byteSize(OUTPUT_LIMIT.floorBytes)})`
    : `over the ${count(p.limit.files)} files a build may write for it (one per ${OUTPUT_LIMIT.bytesPerFile} bytes of content, and never less than ${count(OUTPUT_LIMIT.floorFiles)})`;
  return `the output would be at least ${byteSize(p.size.bytes)} in ${count(p.size.files)} files, from ${byteSize(p.input)} of content: ${over}; ${share(p.source)}`;
}

function share(s: LargestSource): string {
  switch (s.kind) {
    case 'catalog':
      return `this catalog has ${count(s.size.files)} pages (${byteSize(s.size.bytes)} without the items they list), for its ${count(s.genres)} genres${s.queries > 0 ? ` and ${count(s.queries)} search queries` : ''}`;
    case 'listed':
      return `this item is listed on ${count(s.pages)} catalog pages, ${byteSize(s.bytes)} in all, each listing ${byteSize(s.preview)} with its ${count(s.genres)} genres${s.links ? ' and their links' : ''}`;
    case 'own':
      return `this item's own files (meta, streams, subtitles) take at least ${byteSize(s.size.bytes)} in ${count(s.size.files)} files`;
    case 'manifest':
      return 'most of it is the manifest';
  }
}

function outputTooLargeHint(p: OutputTooLarge): string {
  if (p.kind === 'listings')
    return 'use fewer catalogs that list every item of a type: with `items: listed`, a catalog lists only the items that name it in `catalogs`';
  const s = p.source;
  switch (s.kind) {
    case 'catalog':
      if (s.queries > s.genres) {
        return 'write fewer search files: searchQueries: words leaves out the whole names, names the single words (each query adds at least three pages)';
      }
      return s.genres > 0
        ? 'offer fewer genres in this catalog: each genre adds at least three pages (its first page, and the empty page that ends it in both orders of extras); with `genres: auto`, its items bring them'
        : 'use fewer catalogs, or make this one smaller';
    case 'listed':
      return s.genres > 0
        ? 'give the item fewer genres: in a catalog with a genre filter each of them adds pages that list the item, and each listing repeats all of them'
        : 'list the item in fewer catalogs, or give it a shorter preview';
    case 'own':
      return 'each stream is written with the subtitles of its item or video: give it fewer streams or subtitles, or split it into several items';
    case 'manifest':
      return 'use fewer catalogs or genres';
  }
}

/**
 * The inputs of two output files: `by` the text that names one (`content/a.yaml:3:5`, or the
 * resource when it comes from no item), `other` the other's, undefined when the other has a
 * location: the diagnostic's related location names it then.
 */
export interface ConflictParams {
  path: string;
  by: string;
  otherPath: string;
  other: string | undefined;
}
const otherInput = (other: string | undefined) => other ?? 'another item';

/**
 * case-conflict: two output files (`ConflictParams`), or two genres of one catalog whose pages
 * would be one file (`genre` the one reported, `otherGenre` the first; `fixed` when both are in
 * the catalog's own `genres` list, not brought in by its items).
 */
export type CaseConflict = ConflictParams | { genre: string; otherGenre: string; catalog: string; page: string; otherPage: string; fixed: boolean };

function caseConflict(p: CaseConflict): string {
  if (!('genre' in p))
    return `${p.path} (by ${p.by}) and ${p.otherPath} (by ${otherInput(p.other)}) differ only in ${howTheyDiffer(p.path, p.otherPath)}`;
  return `genre "${p.genre}" of catalog "${p.catalog}" differs from its genre "${p.otherGenre}" only in ${howTheyDiffer(p.genre, p.otherGenre)}: each page of one (${p.page}) and the same page of the other (${p.otherPage}) would be one file`;
}

const countOf = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

export const PLAN_MESSAGES = {
  'output-too-large': { severity: error, message: outputTooLarge, hint: outputTooLargeHint },
  'output-conflict': {
    severity: error,
    message: (p: ConflictParams) => `${p.path} would be written twice: by ${otherInput(p.other)} and by ${p.by}`,
    hint: () => 'an item id and a video id (or two video ids) of the same type are equal; make them distinct',
  },
  'case-conflict': {
    severity: error,
    message: caseConflict,
    hint: (p: CaseConflict) =>
      'genre' in p
        ? `${p.fixed ? 'list the genre once, in one spelling' : `give the catalog's items one spelling of the genre ("${p.otherGenre}" or "${p.genre}")`}: file systems and hosts that ignore case or Unicode normalization would make the pages of both one file`
        : 'file systems and hosts that ignore case or Unicode normalization would make them one file: change one of the ids (or genres) by more than that',
  },
  'host-limit': {
    severity: warning,
    message: (p: { host: string; value: number; what: string; limit: number; largest?: string }) =>
      `${p.host}: ${p.value} ${p.what}, over its limit of ${p.limit}${p.largest === undefined ? '' : ` (${p.largest})`}`,
    hint: () => 'split the addon, use fewer genres (each doubles the catalog pages) or search files (searchQueries), or choose another host',
  },
  'subtitles-need-rewrites': {
    severity: warning,
    message: (p: { count: number; hosts: readonly string[]; elsewhere: boolean }) =>
      `${p.count} ${p.count === 1 ? 'item or video has' : 'items and videos have'} subtitles and no stream to carry them: on ${p.hosts.join(' and ')} the Stremio apps ask for subtitles with the video's hash and size, which no file can answer`,
    hint: (p: { elsewhere: boolean }) =>
      p.elsewhere
        ? 'publish on Cloudflare Pages (--host cloudflare), Netlify or Vercel, whose rewrite answers those requests: the streams users play come from other addons'
        : 'give the video a stream (its subtitles travel in it), or publish on Cloudflare Pages, Netlify or Vercel, whose rewrite answers those requests',
  },
  'manifest-too-large': {
    severity: warning,
    message: (p: { bytes: number; limit: number }) => `manifest.json is ${p.bytes} bytes, over the ${p.limit} bytes the official SDK accepts`,
    hint: () => 'use fewer catalogs or genres, a shorter description, or declare idPrefixes in addon.yaml',
  },
  'foreign-files': {
    severity: warning,
    message: (p: { count: number; outDir: string; examples: string }) => {
      const one = p.count === 1;
      return `${p.count} ${one ? 'entry' : 'entries'} in ${p.outDir} ${one ? 'was' : 'were'} not written by addon-gen and ${one ? 'is' : 'are'} left alone: ${p.examples}`;
    },
    hint: () => 'hosts publish them with the addon; fine for a CNAME, else delete them (this is reported once)',
  },
  'too-many-problems': {
    message: (p: { errors: number; warnings: number }) => {
      const total = p.errors + p.warnings;
      const what = p.warnings === 0 ? 'more error' : p.errors === 0 ? 'more warning' : 'more problem';
      const both = p.errors > 0 && p.warnings > 0 ? `: ${countOf(p.errors, 'error')} and ${countOf(p.warnings, 'warning')}` : '';
      return `${countOf(total, what)} in this file ${total === 1 ? 'is' : 'are'} not shown${both}`;
    },
    hint: () => 'fix the ones shown and build again; so many problems in one file are usually one mistake, repeated',
  },
} satisfies Record<string, CatalogEntry>;

/** What makes two paths (or genres) that fold alike different: letter case, normalization, or both. */
function howTheyDiffer(a: string, b: string): string {
  const sameText = a.normalize('NFC') === b.normalize('NFC');
  if (!sameText && a.toLowerCase() === b.toLowerCase()) return 'letter case';
  const example = composedExample(a, b);
  const normalization = `Unicode normalization (${example ? `"${example.composed}" written as one character in one and as "${example.base}" plus a combining mark in the other` : 'accented letters written as one character in one and as a letter plus a combining mark in the other'})`;
  return sameText ? normalization : `letter case and ${normalization}`;
}

/**
 * Where the two first differ by more than case, the character that one of them writes
 * composed (`é`), and the letter the other writes before its combining mark (`e`).
 */
function composedExample(a: string, b: string): { composed: string; base: string } | undefined {
  for (let i = 0; i < a.length && i < b.length;) {
    const charA = String.fromCodePoint(a.codePointAt(i) ?? 0);
    const charB = String.fromCodePoint(b.codePointAt(i) ?? 0);
    if (charA !== charB && charA.toLowerCase() !== charB.toLowerCase()) {
      const composed = charA.normalize('NFD') !== charA ? charA : charB;
      const [base = composed] = composed.normalize('NFD');
      return base === composed ? undefined : { composed, base };
    }
    i += charA.length;
  }
  return undefined;
}
