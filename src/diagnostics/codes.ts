// Every code addon-gen can report, with its title, and the shape of a problem found in content.
// The words of each code's message and hint are in the message catalog (catalog.ts).
// docs/diagnostics.md documents each code (test/diagnostics.test.ts runs its examples).

export type Severity = 'error' | 'warning';

export interface Location {
  file: string;
  line: number;
  column: number;
}

export interface Diagnostic extends Partial<Location> {
  code: DiagnosticCode;
  severity: Severity;
  /** Field path inside the file, in the YAML's own terms: `items[2].streams[0].url`. */
  path?: string;
  message: string;
  hint?: string;
  /**
   * Other places the problem involves, after esbuild's notes and TypeScript's related
   * information: where a duplicate id was first defined, the other input of an output conflict.
   * Every format shows them after the problem itself.
   */
  related?: RelatedLocation[];
}

/** A place a diagnostic points to besides its own, with what happens there (`first defined here`). */
export interface RelatedLocation extends Partial<Location> {
  message: string;
}

/**
 * The diagnostic with `map` applied to its file and to the files of its related locations: to
 * make them relative to a folder, or absolute again, all in the same way.
 */
export function mapDiagnosticFiles(d: Diagnostic, map: (file: string) => string): Diagnostic {
  const file = d.file === undefined ? {} : { file: map(d.file) };
  if (d.related === undefined) return { ...d, ...file };
  const related = d.related.map((r) => (r.file === undefined ? r : { ...r, file: map(r.file) }));
  return { ...d, ...file, related };
}

/** Permanent names, with their titles. A code is never reused for another meaning. */
export const CODES = {
  'yaml-syntax': 'The file is not valid YAML.',
  'duplicate-key': 'A mapping has the same key twice.',
  'yaml-alias': 'An alias could not be expanded (too many aliases, or an unknown anchor).',
  'not-an-item': 'A document is neither an item, a list of items, nor empty.',
  'csv-syntax':
    'A table (CSV file) is not valid CSV, or its header cannot name the columns (an unclosed quote, a row of another length, a column twice, semicolons between cells).',
  'csv-rows-differ': "Rows of one id in a table give one of the item's fields different values.",
  'unknown-field': 'A field the format does not have (often a typo).',
  'missing-field': 'A required field is absent.',
  'invalid-value': 'A field has the wrong type or form.',
  'stream-source': 'A stream has no source, or more than one.',
  'bad-file-name': 'An id, type or genre cannot become a file name on every host.',
  'duplicate-id': 'Two items share an id.',
  'duplicate-video-id': 'Two videos of one item share an id.',
  'duplicate-catalog': 'Two catalogs share a type and id.',
  'unknown-catalog': 'An item names a catalog that does not exist.',
  'unknown-default-video': '`behaviorHints.defaultVideoId` names no video of the item.',
  'uncovered-type': 'Items that no catalog lists: reachable only through meta requests.',
  'unknown-type': "An item's type is one letter away from a catalog's type or a known type, and no catalog lists it: probably a typo.",
  'unknown-genre':
    "An item's genre is not in the fixed `genres` list of a catalog that lists the item: its genre filter will not find the item by it.",
  'missing-asset': 'A local file named by a URL field does not exist.',
  'asset-outside-content': 'A local file path leaves the content folder.',
  'base-url-required': 'Local files or genre links need the public base URL.',
  'manifest-too-large': 'manifest.json is over 8 KB; the official SDK refuses such manifests.',
  'missing-addon-yaml': 'The content folder has no addon.yaml.',
  'output-conflict': 'Two inputs would write the same output file.',
  'host-limit': 'The output is over a limit of a chosen host (files, file size, site size).',
  'insecure-base-url': 'The base URL is plain http:// and not on 127.0.0.1; the client needs HTTPS.',
  'subtitles-need-rewrites': "Subtitles that only the subtitles resource carries, on a host that cannot answer the player's request for them.",
  'case-conflict':
    'Two output files whose paths differ only in letter case or in Unicode normalization (é as one character, or as e plus a combining accent).',
  'unset-variable': 'A value uses `${NAME}` and the variable is not set.',
  'secret-in-output': 'A value would publish a secret (a guarded variable or its value).',
  'foreign-files': 'The output folder holds files addon-gen did not write; they are left alone.',
  'credentials-in-output': 'A stream sends credentials (Authorization, Cookie, X-Api-Key) that anyone could read.',
  'yaml-too-deep': 'Values nested more levels deep than the parsers allow (100).',
  'file-too-large': 'A content file is over the size limit (16 MiB, or --max-file-size); it is not read.',
  'binary-file': 'A content file holds NUL bytes: binary data, not YAML text.',
  'invalid-utf8': 'A content file is not UTF-8 text (Latin-1, UTF-16, …).',
  'unreadable-file': 'A content file or folder cannot be read (permissions, a broken link, not a file).',
  'symlink-not-followed': 'A symbolic link leads outside the content folder, so it is not followed.',
  'too-many-problems': 'A file has more problems than are shown (100 errors, 100 warnings); the rest are counted.',
  'config-not-prebuildable': 'A config option takes typed values (text, number, password), which a static addon cannot pre-build.',
  'too-many-configurations': 'The config options make more configurations than the limit (64, or maxConfigurations); each is a tree of its own.',
  'invalid-config': 'A config option, or a behaviorHint about configuration, that cannot work as written.',
  'unknown-config': '`when` names a config key or value that addon.yaml does not declare.',
  'unused-config': 'A config option that no `when` names: its configurations are copies of each other.',
  'removed-configurations': 'A build removed configuration folders that the last build wrote: their installed URLs stop working.',
  'catalog-placement': 'A catalog whose `board`, `search` and `genres` cannot work together: it would not show where they say.',
  'addon-unreadable': 'An addon collection lists an addon whose manifest cannot be read (a missing file, an HTTP error, no answer, not JSON).',
  'invalid-addon-manifest': 'An addon collection lists something that is not a manifest Stremio installs (a wrong URL, plain http, a field missing).',
  'duplicate-addon': 'An addon collection lists the same addon twice, or two collections share a type and id.',
  'output-too-large': 'The output would be far larger than the content it is built from (genres multiply catalog pages); nothing is written.',
  'playlist-syntax': 'A line of an M3U playlist that cannot be read as a channel (a URL without #EXTINF, a quote that does not close, no name).',
  'playlist-attribute':
    'An M3U attribute or #EXTVLCOPT option that no item field takes and the README does not list as ignored, a tvg-id that cannot be a file name, or an #EXTVLCOPT header after a URL.',
  'playlist-unreadable': 'A playlist addon.yaml names cannot be read (a missing file, an HTTP error, no answer).',
  'duplicate-playlist': '`playlists` in addon.yaml lists one playlist file twice: only one entry can give its settings.',
  'hls-playlist': 'An .m3u8 file is an HLS stream playlist (#EXT-X-TARGETDURATION, #EXT-X-STREAM-INF), not a list of channels.',
} as const;

export type DiagnosticCode = keyof typeof CODES;
