// Local files: paths in URL fields that name files of the content folder, which a build copies
// under `assets/` and publishes at the base URL.
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SourceValue } from '../load/index.js';
import type { Asset } from '../shared/content.js';
import { ASSETS_DIR, publicUrl } from '../shared/paths.js';
import { codedIssue, fileNameProblem, type LocalFileResolver } from './schema.js';
import { isWithin } from '../shared/locations.js';

function realpathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/**
 * A URL without its scheme: `www.` and a host, or a host name (two or more labels, the last of
 * letters only, not a file extension: `poster.jpg` is a file) and a path.
 */
const LOOKS_LIKE_HOST = {
  test: (value: string): boolean => {
    if (/^www\.[a-z0-9-]+\.[a-z]/i.test(value)) return true;
    const host = /^((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+([a-z]{2,}))(?::\d+)?\//i.exec(value);
    return host !== null && !FILE_EXTENSIONS.has(host[2]!.toLowerCase());
  },
};
const FILE_EXTENSIONS = new Set([
  'jpg',
  'jpeg',
  'png',
  'gif',
  'webp',
  'svg',
  'srt',
  'vtt',
  'ass',
  'mp4',
  'mkv',
  'webm',
  'avi',
  'mov',
  'yaml',
  'yml',
  'json',
  'txt',
  'zip',
]);

/**
 * Resolves local file paths in URL fields: relative to the YAML file that names them, inside the
 * content folder, existing, and published under `assets/` at the base URL.
 */
export function localFiles(contentDir: string) {
  const root = path.resolve(contentDir);
  let realRoot: string | undefined;
  const copied = new Map<string, string>();
  let resolved = 0;
  let current: { dir: string; baseUrl: string | undefined } = { dir: root, baseUrl: undefined };

  const resolve: LocalFileResolver = (value) => {
    if (path.isAbsolute(value) || /^[a-z]:[\\/]/i.test(value)) return codedIssue('asset-outside-content', { value, how: 'absolute' });
    const absolute = path.resolve(current.dir, value);
    const relative = path.relative(root, absolute);
    if (relative.startsWith('..') || path.isAbsolute(relative)) {
      return codedIssue('asset-outside-content', { value, how: 'outside' });
    }
    // Each part of its path becomes a name in the output and in a URL, and is printed in messages.
    for (const part of relative.split(path.sep)) {
      const problem = fileNameProblem(part, false);
      if (problem) return codedIssue('bad-file-name', { value, part, problem });
    }
    let real: string | undefined; // where the file is once symbolic links are followed
    try {
      if (statSync(absolute).isFile()) real = realpathSync(absolute);
    } catch {
      // missing: reported below
    }
    if (real === undefined) {
      return codedIssue('missing-asset', { value, absolute, looksLikeHost: LOOKS_LIKE_HOST.test(value) });
    }
    // The path is inside, but a symbolic link on it may lead out: what would be published is.
    realRoot ??= realpathOr(root);
    if (!isWithin(realRoot, real, { orSame: true })) {
      return codedIssue('asset-outside-content', { value, how: 'link', real });
    }
    if (current.baseUrl === undefined) {
      return codedIssue('base-url-required', { value });
    }
    const output = `${ASSETS_DIR}/${relative.split(path.sep).join('/')}`;
    copied.set(output, absolute);
    resolved++;
    return { url: publicUrl(current.baseUrl, output) };
  };

  return {
    resolve,
    /** Sets the file that the next values come from, and the base URL their local files get. */
    from(value: SourceValue, baseUrl: string | undefined) {
      current = { dir: path.dirname(value.source.absolute), baseUrl };
    },
    /** How many values named a local file so far: what such a value becomes depends on more than its text. */
    resolved: () => resolved,
    assets: (): Asset[] => [...copied].map(([output, source]) => ({ path: output, source })),
  };
}
