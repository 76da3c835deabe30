// The files of the items an edit touched, answered by serve --watch before the rest of the rebuild
// is planned and written: the edited item's meta, streams and subtitles show within the time it
// takes to check the content, and its catalog pages follow with the rebuild.
import type { Content, FileOrigin } from '../shared/content.js';
import { addItemFiles, itemRendering, type ItemFile } from './item-files.js';
import { buildManifest } from './manifest.js';

/** More owners than this and the rebuild is not much further off than their files would be. */
export const EARLY_OWNERS_LIMIT = 1_000;

/** A built tree: the content it was planned from and its manifest's text. */
export interface BuiltTree {
  content: Content;
  manifest: string;
}

/**
 * The bodies, by path, that the plan of `after` gives the item files of the items and titles from
 * the content files `edited`; undefined when that is not all an edit changed, or not known to be:
 *   - a configurable addon: each configuration is a tree of its own;
 *   - other settings in addon.yaml, or another base URL;
 *   - another manifest (a genre the catalogs now offer or no longer do): its resources decide
 *     which item files there are;
 *   - other paths than `before` had for those files (an id added, removed or moved), or more
 *     than EARLY_OWNERS_LIMIT items and titles.
 * Rendered as the plan renders them (item-files.ts), from the same content: the same bytes.
 */
export function earlyAnswers(before: BuiltTree, after: Content, edited: ReadonlySet<string>): Map<string, string> | undefined {
  const was = before.content;
  if (was.config.length > 0 || after.config.length > 0) return undefined;
  // The settings give the bodies' cache hints, and the served tree's headers theirs.
  if (was.baseUrl !== after.baseUrl || JSON.stringify(was.addon) !== JSON.stringify(after.addon)) return undefined;
  const manifest = buildManifest(after);
  if (JSON.stringify(manifest) !== before.manifest) return undefined;
  const filesOf = (content: Content) => {
    const touched = (origin: FileOrigin) => edited.has(origin.source.file);
    const items = content.items.filter(touched);
    const externalTitles = content.externalTitles.filter(touched);
    if (items.length + externalTitles.length > EARLY_OWNERS_LIMIT) return undefined;
    const files: ItemFile[] = [];
    addItemFiles(files, { ...content, items, externalTitles }, manifest, itemRendering(content, items), undefined);
    return files;
  };
  const [old, now] = [filesOf(was), filesOf(after)];
  if (!old || !now) return undefined;
  const paths = new Set(old.map((file) => file.path));
  if (now.length !== paths.size || now.some((file) => !paths.has(file.path))) return undefined;
  return new Map(now.map((file) => [file.path, file.body()]));
}
