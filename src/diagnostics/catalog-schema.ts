// The catalog's words for the codes of the schema's checks: fields that are missing, unknown or
// wrong, streams, file names and local files. Zod's own descriptions of a wrong value
// (`expected a string, found a number`) come in as `schema` words.
import type { CatalogEntry } from './catalog.js';
import type { Severity } from './codes.js';

const error: Severity = 'error';
const DATE_FORMS = 'write a date like 1968-10-01 or a date-time like 1968-10-01T20:00:00Z';

/** invalid-value: the schema's words for a wrong value, or one of the mistakes told in words of their own. */
export type InvalidValue =
  /** What the schema says, and its hint when it has one. */
  | { kind: 'schema'; message: string; hint?: string }
  /** `released: 1922`: YAML reads a year as a number, and a year is not a date. */
  | { kind: 'year-as-date'; found: string; input: number }
  /** `season: "1"`: in quotes a number is text. */
  | { kind: 'quoted-number'; message: string; input: string }
  /** `behaviorHints:` with nothing (or its fields under-indented) after it. */
  | { kind: 'empty'; message: string; field: string; entries: boolean }
  | { kind: 'not-a-date'; value: string }
  /** A relative URL where the client needs an absolute one. */
  | { kind: 'relative-url' }
  | { kind: 'own-field'; field: string }
  | { kind: 'id-prefix'; id: string; listed: string }
  | { kind: 'variable-name'; shown: string };

function invalidValue(p: InvalidValue): string {
  switch (p.kind) {
    case 'schema':
    case 'quoted-number':
    case 'empty':
      return p.message;
    case 'year-as-date':
      return `expected a date such as 1922-03-04, found ${p.found}`;
    case 'not-a-date':
      return `"${p.value}" is not a date that exists`;
    case 'relative-url':
      return 'expected an absolute URL';
    case 'own-field':
      return `an item with videos has no ${p.field} of its own: the client asks for the ${p.field} of each video`;
    case 'id-prefix':
      return `"${p.id}" starts with none of the idPrefixes in addon.yaml (${p.listed}), so the client would never ask for it`;
    case 'variable-name':
      return `"\${${p.shown}}" is not a variable name`;
  }
}

function invalidValueHint(p: InvalidValue): string | undefined {
  switch (p.kind) {
    case 'schema':
      return p.hint;
    case 'year-as-date':
      return Number.isInteger(p.input) && p.input >= 1000 && p.input <= 9999
        ? `for a year, write the whole date (released: ${p.input}-01-01), or the year as text: releaseInfo: "${p.input}"`
        : DATE_FORMS;
    case 'quoted-number':
      return `write ${p.input.trim()} without quotes: in quotes it is text`;
    case 'empty':
      return `write its ${p.entries ? 'entries' : 'fields'} on the lines below "${p.field}", indented further than it, or remove "${p.field}"`;
    case 'not-a-date':
      return DATE_FORMS;
    case 'relative-url':
      return 'the client rejects relative URLs; write https://… (or a local file path where the field allows one)';
    case 'own-field':
      return `move these ${p.field} to the videos they belong to`;
    case 'id-prefix':
      return `add a prefix of "${p.id}" to idPrefixes in addon.yaml, or remove idPrefixes to derive them`;
    case 'variable-name':
      return 'names are letters, digits and _; write $${…} for a literal ${…}';
  }
}

/** unknown-field: a close name, the empty mapping it belongs to, its new name, or the fields allowed. */
export interface UnknownField {
  key: string;
  suggestion: string | undefined;
  /** The empty mapping above whose field this is (`behaviorHints`). */
  emptyParent: string | undefined;
  renamed: string | undefined;
  known: readonly string[];
}

function unknownFieldHint(p: UnknownField): string {
  if (p.suggestion) return `did you mean "${p.suggestion}"?`;
  if (p.emptyParent !== undefined) {
    return `"${p.key}" is a field of ${p.emptyParent}, which is empty: indent "${p.key}" further than ${p.emptyParent} to put it there`;
  }
  return p.renamed ?? `the fields allowed here are: ${p.known.join(', ')}`;
}

/** asset-outside-content: an absolute path, a relative one that leaves the folder, or a link that leads out. */
export type OutsideContent = { value: string; how: 'absolute' | 'outside' } | { value: string; how: 'link'; real: string };

export const SCHEMA_MESSAGES = {
  'invalid-value': { severity: error, message: invalidValue, hint: invalidValueHint },
  'missing-field': {
    severity: error,
    message: (p: { field: string; video: boolean }) => `"${p.field}" is required${p.video ? ' for a video without season and episode' : ''}`,
    hint: (p: { field: string; video: boolean }) => `add ${p.field}: …${p.video ? ', or give the video a season and an episode' : ''}`,
  },
  'unknown-field': {
    severity: error,
    message: (p: UnknownField) => `unknown field "${p.key}"`,
    hint: unknownFieldHint,
  },
  'stream-source': {
    severity: error,
    message: (p: { sources: readonly string[]; allowed: readonly string[] }) =>
      p.sources.length === 0
        ? 'a stream needs exactly one source, and this one has none'
        : `a stream needs exactly one source, and this one has ${p.sources.length}: ${p.sources.join(', ')}`,
    hint: (p: { allowed: readonly string[] }) => `give exactly one of ${p.allowed.join(', ')}; put alternatives in separate streams`,
  },
  'bad-file-name': {
    severity: error,
    message: (p: { value: string; problem: string; part?: string }) =>
      p.part === undefined
        ? `"${p.value}" ${p.problem}, so it cannot become a file name on every host`
        : `"${p.value}": the name "${p.part}" ${p.problem}, so it cannot become a file name on every host`,
    hint: (p: { part?: string }) =>
      p.part === undefined
        ? 'use letters, digits and -_:. (no slashes, not ending in a dot or space, not CON, NUL, COM1…), at most 200 bytes'
        : 'rename the file: no backslash or control character, at most 200 bytes per name',
  },
  'missing-asset': {
    severity: error,
    message: (p: { value: string; absolute: string; looksLikeHost: boolean }) =>
      `"${p.value}" is neither a URL nor an existing file (looked for ${p.absolute})`,
    hint: (p: { value: string; looksLikeHost: boolean }) =>
      p.looksLikeHost
        ? `did you mean "https://${p.value}"? A URL needs its scheme; without one it is a file name`
        : 'check the spelling and that the path is relative to this YAML file; URLs need their scheme (https://…)',
  },
  'asset-outside-content': {
    severity: error,
    message: (p: OutsideContent) => {
      if (p.how === 'link') return `"${p.value}" leads through a symbolic link to ${p.real}, outside the content folder`;
      return p.how === 'absolute' ? `"${p.value}" is an absolute path` : `"${p.value}" is outside the content folder`;
    },
    hint: (p: OutsideContent) =>
      p.how === 'absolute'
        ? 'name local files relative to the YAML file, inside the content folder, or give an absolute URL'
        : p.how === 'outside'
          ? 'copy the file into the content folder; only files inside it are published'
          : 'copy the file into the content folder; a build publishes no file from outside it',
  },
  'base-url-required': {
    severity: error,
    message: (p: { value: string }) => `"${p.value}" is a local file, and local files need the public base URL`,
    hint: () => 'the client rejects relative URLs: set `baseUrl` in addon.yaml or pass --base-url https://…/ (where the output will be published)',
  },
} satisfies Record<string, CatalogEntry>;
