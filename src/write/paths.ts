// Part of stage 4, write: output paths as the build checks and joins them, once per file.
import path from 'node:path';

/** `meta/movie` for `meta/movie/x.json`; '' for a file at the top. */
export function folderOf(file: string): string {
  const slash = file.lastIndexOf('/');
  return slash < 0 ? '' : file.slice(0, slash);
}

/** `meta` for `meta/movie/x.json`; '' for a file at the top. */
export function topFolderOf(file: string): string {
  const slash = file.indexOf('/');
  return slash < 0 ? '' : file.slice(0, slash);
}

/** An empty, `.` or `..` segment, a backslash, or a drive or root at the start. */
const NOT_PLAIN = /(?:^|\/)\.{0,2}(?:\/|$)|\\|^[a-z]:/i;

/** `a/b.json`: relative, forward slashes, no `.` or `..` segments, nothing empty. */
export function isPlainRelativePath(file: string): boolean {
  return !NOT_PLAIN.test(file);
}

/**
 * The absolute path of an output path below `root` (an absolute folder), refusing any that would
 * lead out of it. A test and a concatenation: path.resolve, once per file, is slower (figures:
 * bench/README.md, 'Output paths joined, not resolved').
 */
export function inside(root: string, relative: string): string {
  if (!isPlainRelativePath(relative)) throw new Error(`refusing to write outside the output folder: ${relative}`);
  return root + path.sep + (path.sep === '/' ? relative : relative.replaceAll('/', path.sep));
}
