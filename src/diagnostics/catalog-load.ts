// The catalog's words for the codes of load: YAML syntax as a person who wrote the file by hand
// reads it, aliases, documents that are not items, addon.yaml, and content files that cannot be
// read (links, permissions, size, bytes that are not UTF-8 text).
import { byteSize } from '../shared/bytes.js';
import type { CatalogEntry } from './catalog.js';
import type { Severity } from './codes.js';

const error: Severity = 'error';
const warning: Severity = 'warning';
const WRITE_OUT = 'write the values out; aliases are for sharing a few values, not for building large ones';

/** Hints for the parser's errors that have one fix, by the parser's code. */
const SYNTAX_HINTS = {
  TAB_AS_INDENT: 'YAML does not allow tabs in indentation: indent with spaces (most editors can insert spaces for .yaml files)',
  BAD_SCALAR_START: 'put the value in quotes: a plain value cannot start with @ or a backquote',
  BLOCK_AS_IMPLICIT_KEY: 'a value that contains ": " needs quotes: name: "Nosferatu: A Symphony of Horror"',
  BAD_DQ_ESCAPE: 'in double quotes a backslash starts an escape such as \\n or \\u00e9; write \\\\ for a backslash, or use single quotes',
  KEY_OVER_1024_CHARS: 'a key that is not quoted may be at most 1024 characters long: a `:` missing a space, or a key that runs on?',
} as const;

/** The parser's codes that have a hint of their own. */
export type SyntaxCause = keyof typeof SYNTAX_HINTS;

export function isSyntaxCause(code: string): code is SyntaxCause {
  return Object.hasOwn(SYNTAX_HINTS, code);
}

/**
 * yaml-syntax: the parser's words (with the hint of its error's cause), or a mistake of
 * indentation told as such, or a failure of the parser itself.
 */
export type YamlSyntax =
  | { kind: 'parser'; text: string; cause: SyntaxCause | undefined }
  /** A key indented further than the key above it, which YAML reads as more of that key's value. */
  | { kind: 'key-indented'; key: string; above: string; column: number }
  /** Keys of one mapping that start in different columns; `above` the key of the line above, if it has one. */
  | { kind: 'mapping-columns'; text: string; column: number; above: { key: string; column: number } | undefined }
  | { kind: 'sequence-columns'; text: string; column: number }
  /** A line without a key that starts as far left as one; `above` the key whose value it would continue. */
  | { kind: 'continuation'; text: string; above: string | undefined }
  /** A `[` or `{` that is not closed, noticed on a later line; `line` the opener's. */
  | { kind: 'unclosed-flow'; text: string; open: '[' | '{'; line: number }
  | { kind: 'parser-failed'; reason: string };

function yamlSyntax(p: YamlSyntax): string {
  switch (p.kind) {
    case 'key-indented':
      return `"${p.key}" is indented further than "${p.above}" above it, so YAML reads this line as more of the value of "${p.above}"`;
    case 'parser-failed':
      return `the YAML parser failed on this file: ${p.reason}`;
    default:
      return p.text;
  }
}

function yamlSyntaxHint(p: YamlSyntax): string | undefined {
  switch (p.kind) {
    case 'parser':
      return p.cause === undefined ? undefined : SYNTAX_HINTS[p.cause];
    case 'key-indented':
      return `keys of one mapping start in the same column: indent "${p.key}" as far as "${p.above}" (column ${p.column})`;
    case 'mapping-columns': {
      const where = p.above ? `, and "${p.above.key}" above it in column ${p.above.column}` : '';
      return `keys of one mapping start in the same column: this line starts in column ${p.column}${where}; indent with spaces to line them up`;
    }
    case 'sequence-columns':
      return `the "-" of one list's entries start in the same column: this one is in column ${p.column}; indent with spaces to line them up`;
    case 'continuation': {
      const of = p.above === undefined ? '' : ` of "${p.above}"`;
      return `a line without "key:" continues the value above it, so it must be indented further than that value's key: indent it to continue the value${of}, or add the ":" a key needs`;
    }
    case 'unclosed-flow': {
      const close = p.open === '[' ? ']' : '}';
      return `close the "${p.open}" of line ${p.line} with "${close}" on that line (or write its entries on lines of their own); a value that holds "${p.open}" needs quotes`;
    }
    case 'parser-failed':
      return 'simplify the file around its unusual parts; please report this with the file';
  }
}

/** yaml-alias: aliases that cannot be expanded, or that would make the value infinite, too deep or too large. */
export type YamlAlias =
  /** js-yaml's words, for a file too large for the careful parser. */
  | { kind: 'parser'; text: string }
  | { kind: 'failed'; reason: string; max: number }
  | { kind: 'cycle' }
  | { kind: 'deep'; limit: number }
  | { kind: 'large'; added: number; max: number };

function yamlAlias(p: YamlAlias): string {
  switch (p.kind) {
    case 'parser':
      return p.text;
    case 'failed':
      return `aliases could not be expanded: ${p.reason}`;
    case 'cycle':
      return 'an alias is inside the value of its own anchor, which would make the value infinite';
    case 'deep':
      return `aliases nest the values more than ${p.limit} levels deep`;
    case 'large':
      return `aliases repeat ${p.added < 1e15 ? p.added : `about 10^${Math.floor(Math.log10(p.added))}`} values in this document, more than the ${p.max} allowed`;
  }
}

function yamlAliasHint(p: YamlAlias): string | undefined {
  switch (p.kind) {
    case 'parser':
      return undefined;
    case 'failed':
      return `write the values out, or use fewer nested aliases (at most ${p.max} expansions per document)`;
    case 'cycle':
      return 'remove the alias, or write out the part it stands for';
    default:
      return WRITE_OUT;
  }
}

/**
 * missing-addon-yaml: no addon.yaml (`kind` absent), or one that is a link leaving the content
 * folder, so it is not followed.
 */
export type MissingAddonYaml = { kind?: 'missing'; path: string } | { kind: 'link-outside'; target: string };

function missingAddonYaml(p: MissingAddonYaml): string {
  return p.kind === 'link-outside'
    ? `symbolic link to ${p.target}, outside the content folder, so it is not followed and the addon has no settings`
    : `${p.path} does not exist`;
}

function missingAddonYamlHint(p: MissingAddonYaml): string {
  return p.kind === 'link-outside'
    ? 'copy the settings into the content folder; a build reads no file outside it'
    : 'every content folder needs an addon.yaml with at least id, version and name; run the build on the folder that holds it';
}

/** unreadable-file: why a content file, folder or link cannot be read. */
export type UnreadableFile =
  /** A link that leads back to itself. */
  | { kind: 'link-loop'; target: string }
  /** A link to nothing (or to what cannot be reached). */
  | { kind: 'link-broken'; target: string }
  /** A named pipe, socket or device. */
  | { kind: 'not-a-file' }
  | { kind: 'denied'; what: 'file' | 'folder' }
  /** Any other failure: the system's message, or its error code. */
  | { kind: 'failed'; reason: string };

function unreadableFile(p: UnreadableFile): string {
  switch (p.kind) {
    case 'link-loop':
      return `symbolic link to ${p.target}, which leads back to itself (a loop of links)`;
    case 'link-broken':
      return `symbolic link to ${p.target}, which does not exist`;
    case 'not-a-file':
      return 'not a regular file (a named pipe, socket or device), so it is not read';
    case 'denied':
      return p.what === 'folder'
        ? 'folder that cannot be read (permission denied): the YAML files in it are not read'
        : 'cannot be read: permission denied';
    case 'failed':
      return `cannot be read: ${p.reason}`;
  }
}

function unreadableFileHint(p: UnreadableFile): string | undefined {
  switch (p.kind) {
    case 'link-loop':
    case 'link-broken':
      return 'point the link at an existing file inside the content folder, or remove it';
    case 'not-a-file':
      return 'only regular files are read: replace it with one, or rename it without .yaml or .yml';
    case 'denied':
      return `make the ${p.what} readable by the user running the build (chmod a+r${p.what === 'folder' ? 'x' : ''}), or move it out of the content folder`;
    case 'failed':
      return undefined;
  }
}

/** invalid-utf8: UTF-16 text (its byte order mark), or the first byte that is not UTF-8. */
export type InvalidUtf8 = { kind: 'utf16' } | { kind: 'byte'; byte: number; offset: number };

function invalidUtf8(p: InvalidUtf8): string {
  return p.kind === 'utf16'
    ? 'the file is UTF-16 text (it starts with a UTF-16 byte order mark), not UTF-8'
    : `byte 0x${p.byte.toString(16).padStart(2, '0')} at offset ${p.offset} is not UTF-8; content files (YAML, playlists, tables) must be UTF-8 text`;
}

function invalidUtf8Hint(p: InvalidUtf8): string {
  return p.kind === 'utf16'
    ? 'save it as UTF-8 (in most editors: "Save with encoding" or the encoding in the status bar)'
    : 'save the file as UTF-8; it was probably written as Latin-1 or Windows-1252 (é, ü, ß become single bytes there)';
}

export const LOAD_MESSAGES = {
  'yaml-syntax': { severity: error, message: yamlSyntax, hint: yamlSyntaxHint },
  'duplicate-key': {
    severity: error,
    message: (p: { text: string }) => p.text,
    hint: () => 'remove one of the two keys; a later value would silently replace the earlier one',
  },
  'yaml-too-deep': {
    severity: error,
    message: (p: { limit: number }) => `values are nested more than ${p.limit} levels deep`,
    hint: (p: { limit: number }) => `content needs about ten levels; a file this deep is generated wrongly, or hostile (the limit is ${p.limit})`,
  },
  'yaml-alias': { severity: error, message: yamlAlias, hint: yamlAliasHint },
  'not-an-item': {
    severity: error,
    message: (p: { addonYaml: boolean }) =>
      p.addonYaml ? 'addon.yaml must hold one mapping of settings' : 'a content file holds items (mappings), but this document is a single value',
    hint: (p: { addonYaml: boolean }) =>
      p.addonYaml
        ? 'write `id: …`, `version: …`, `name: …` at the top level; see the README'
        : 'write an item as `id: …`, `type: …`, `name: …`, or a list of such items',
  },
  'missing-addon-yaml': { severity: error, message: missingAddonYaml, hint: missingAddonYamlHint },
  'symlink-not-followed': {
    severity: warning,
    message: (p: { target: string; folder: boolean }) =>
      p.folder
        ? `symbolic link to the folder ${p.target}, which is outside the content folder: the YAML files in it are not read`
        : `symbolic link to ${p.target}, which is outside the content folder: not read`,
    hint: () => 'copy what you need into the content folder; links are followed only within it, so that a build reads nothing else on the machine',
  },
  'unreadable-file': { severity: error, message: unreadableFile, hint: unreadableFileHint },
  /** `size` is undefined for a file that grew past the limit while it was read. */
  'file-too-large': {
    severity: error,
    message: (p: { size: number | undefined; limit: number }) =>
      `${p.size === undefined ? 'grew while it was read to' : `${p.size} bytes,`} over the limit of ${p.limit} bytes (${byteSize(p.limit)}) for a content file, so it is not read`,
    hint: () =>
      'split its items into several files; if it is meant to be this large, raise the limit with --max-file-size (e.g. --max-file-size 64M)',
  },
  'binary-file': {
    severity: error,
    message: () => 'the file holds a NUL byte, so it is binary data (an image or an archive?), not YAML text',
    hint: () => 'give the file its real extension, or move it out of the content folder; only *.yaml and *.yml files are read as content',
  },
  'invalid-utf8': { severity: error, message: invalidUtf8, hint: invalidUtf8Hint },
} satisfies Record<string, CatalogEntry>;
