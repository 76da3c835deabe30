// Part of stage 1, load: the names of content files, by kind, apart from the sources that parse
// them (sources.ts): a rebuild that finds every file as the last build did (build/reuse.ts) lists
// the content folder without loading a parser. A new kind of file is a new name here, used by
// its source's `takes`.

export const YAML_NAME = /\.ya?ml$/;
export const CSV_NAME = /\.csv$/i;
export const PLAYLIST_NAME = /\.m3u8?$/i;

/** Whether a file of this name (the last part of its path) is content of some kind. */
export function isContentName(name: string): boolean {
  return YAML_NAME.test(name) || CSV_NAME.test(name) || PLAYLIST_NAME.test(name);
}
