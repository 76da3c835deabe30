// Paths that one file system or host would take for one file: the same path twice, or paths
// that differ only in letter case or Unicode normalization.
import { DiagnosticList, problem, type Diagnostic } from '../diagnostics/index.js';
import type { FileOrigin } from '../shared/content.js';
import { foldPath } from '../shared/paths.js';
import { GenreConflicts } from './genre-conflicts.js';
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
  const genres = new GenreConflicts(diagnostics);
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
    if (file.genre && earlier.genre && folderOf(file.path) === folderOf(earlier.path)) {
      genres.report(file.genre, file.path, earlier.genre, earlier.path);
      continue;
    }
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
      };
      return problem('case-conflict', params, { ...locate(file), ...other(earlier) });
    });
  }
  return diagnostics.list();
}

const folderOf = (path: string) => path.slice(0, path.lastIndexOf('/'));
