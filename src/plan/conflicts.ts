// Paths that one file system or host would take for one file: the same path twice, or paths
// that differ only in letter case or Unicode normalization.
import { DiagnosticList, problem, type Diagnostic } from '../diagnostics/index.js';
import type { FileOrigin } from '../shared/content.js';
import { foldPath } from '../shared/paths.js';
import type { OutputFile } from './output-file.js';

/**
 * Two files at one path, or at paths that differ only in letter case or in Unicode normalization
 * (`é` as one character, or as `e` and a combining accent): case-insensitive file systems and
 * hosts (Windows, macOS, S3 website behind some CDNs, a checkout on a laptop) merge the first,
 * and macOS and some hosts the second, and one addon would silently serve the other's file.
 */
export function conflicts(files: readonly OutputFile[]): Diagnostic[] {
  // One map by folded path finds all three: a quarter of a million paths, so only one.
  const byFolded = new Map<string, OutputFile>();
  const diagnostics = new DiagnosticList();
  const reportedPairs = new Map<FileOrigin, Set<FileOrigin>>();
  const locate = (f: OutputFile) => f.origin?.where(['id']);
  const where = (f: OutputFile) => {
    const at = locate(f);
    return at ? `${at.file}:${at.line}:${at.column}` : f.resource;
  };
  // The other file's item as a location of its own, for editors and annotations to point at;
  // the message names the other input in words only when it has no location (a catalog's page).
  const other = (f: OutputFile) => {
    const at = locate(f);
    return at ? { related: [{ ...at, message: `the item that writes ${f.path}` }] } : {};
  };
  const otherText = (f: OutputFile) => (locate(f) ? undefined : f.resource);
  // In the file of the later item, within its limit: 200,000 ids that differ from those of
  // another file only in case cost little more than counting them.
  const report = (file: OutputFile, build: () => Diagnostic) => {
    if (file.origin) diagnostics.add(file.origin.where.file, 'error', build);
    else diagnostics.push(build());
  };
  for (const file of files) {
    const folded = foldPath(file.path);
    const earlier = byFolded.get(folded);
    if (!earlier) {
      byFolded.set(folded, file);
      continue;
    }
    if (earlier.path === file.path) {
      report(file, () => {
        const params = { path: file.path, by: where(file), otherPath: earlier.path, other: otherText(earlier) };
        return problem('output-conflict', params, { ...locate(file), ...other(earlier) });
      });
      continue;
    }
    // A search query as written and in lower case, in one catalog's folder: the same results,
    // whichever file is kept. The folders of two catalogs whose ids differ in case are a conflict.
    if (file.caseVariant && earlier.caseVariant && folderOf(file.path) === folderOf(earlier.path)) continue;
    // One report per pair of items, not one per file they both have (meta, streams, subtitles).
    if (file.origin && earlier.origin) {
      const pairs = reportedPairs.get(file.origin) ?? new Set();
      if (pairs.has(earlier.origin)) continue;
      reportedPairs.set(file.origin, pairs.add(earlier.origin));
    }
    report(file, () => {
      const params = {
        path: file.path,
        by: where(file),
        otherPath: earlier.path,
        other: otherText(earlier),
        difference: howTheyDiffer(file.path, earlier.path),
      };
      return problem('case-conflict', params, { ...locate(file), ...other(earlier) });
    });
  }
  return diagnostics.list();
}

const folderOf = (path: string) => path.slice(0, path.lastIndexOf('/'));

/** What makes two paths that fold alike different: letter case, normalization, or both. */
function howTheyDiffer(a: string, b: string): string {
  const sameText = a.normalize('NFC') === b.normalize('NFC');
  if (!sameText && a.toLowerCase() === b.toLowerCase()) return 'letter case';
  const example = composedExample(a, b);
  const normalization = `Unicode normalization (${example ? `"${example.composed}" written as one character in one and as "${example.base}" plus a combining mark in the other` : 'accented letters written as one character in one and as a letter plus a combining mark in the other'})`;
  return sameText ? normalization : `letter case and ${normalization}`;
}

/**
 * Where the paths first differ by more than case, the character that one of them writes
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
