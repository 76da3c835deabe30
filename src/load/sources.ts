// Part of stage 1, load: the kinds of content file, consulted by file name. A new kind is a new
// source (see source.ts, ContentSource) added here.
import { csvSource } from './csv.js';
import type { ContentSource } from './source.js';
import { m3uSource } from './m3u.js';
import { yamlSource } from './yaml.js';

export const CONTENT_SOURCES: readonly ContentSource[] = [yamlSource, csvSource, m3uSource];

/** The source that takes a file at `relative` (a path with forward slashes), if any. */
export function sourceOf(relative: string): ContentSource | undefined {
  const name = relative.slice(relative.lastIndexOf('/') + 1);
  return CONTENT_SOURCES.find((source) => source.takes(name));
}
