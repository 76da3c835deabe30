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
  /** `name: 1917`, `genres: [1980]`: without quotes YAML reads digits as a number; `field` is the key, none in a list. */
  | { kind: 'unquoted-number'; message: string; field: string | undefined; input: number }
  /** `behaviorHints:` with nothing (or its fields under-indented) after it. */
  | { kind: 'empty'; message: string; field: string; entries: boolean }
  | { kind: 'not-a-date'; value: string }
  /** A relative URL where the client needs an absolute one. */
  | { kind: 'relative-url' }
  | { kind: 'own-field'; field: string }
  | { kind: 'id-prefix'; id: string; listed: string; resource?: string }
  | { kind: 'variable-name'; shown: string }
  | ResourceProblem;

/** `resources` in addon.yaml against what the content offers (validate/resources.ts). */
export type ResourceProblem =
  | { kind: 'resource-twice'; name: string }
  | { kind: 'resource-catalog-typed'; name?: 'addon_catalog' }
  | { kind: 'resource-unused'; name: string }
  | { kind: 'resource-omitted'; name: string; example: string }
  | { kind: 'resource-type-unused'; name: string; type: string }
  | { kind: 'resource-types-omitted'; name: string; types: readonly string[] }
  | { kind: 'resource-prefix-unused'; name: string; prefix: string };

/** Why the content offers nothing for a resource. */
const NOTHING_FOR: Record<string, string> = {
  catalog: 'addon.yaml declares no catalogs',
  meta: 'no item has a name (an item without one adds streams or subtitles to a title another addon describes)',
  stream: 'no item has a name or streams',
  subtitles: 'no item, video or title has subtitles',
  addon_catalog: 'addon.yaml declares no addonCatalogs',
};

function resourceMessage(p: ResourceProblem): string {
  switch (p.kind) {
    case 'resource-twice':
      return `${p.name} is listed twice`;
    case 'resource-catalog-typed':
      return p.name === 'addon_catalog'
        ? 'addon_catalog takes no types or idPrefixes: the client asks for the addon collections the manifest lists'
        : 'catalog takes no types or idPrefixes: the client asks for the catalogs the manifest lists';
    case 'resource-unused':
      return `the content offers nothing for ${p.name}: ${NOTHING_FOR[p.name] ?? 'it has none'}`;
    case 'resource-omitted':
      return `resources leaves out ${p.name}, which the content offers (for "${p.example}", for one)`;
    case 'resource-type-unused':
      return `the content offers no ${p.type} for ${p.name}`;
    case 'resource-types-omitted':
      return `the types of ${p.name} leave out ${p.types.join(', ')}, which the content offers it for`;
    case 'resource-prefix-unused':
      return `no id that ${p.name} is offered for starts with "${p.prefix}"`;
  }
}

function resourceHint(p: ResourceProblem): string {
  const derived = 'or leave it out to have it derived from the content';
  switch (p.kind) {
    case 'resource-twice':
      return 'list each resource once';
    case 'resource-catalog-typed':
      return p.name === 'addon_catalog'
        ? 'write addon_catalog alone; the collections themselves are in `addonCatalogs`'
        : 'write catalog alone; the catalogs themselves are in `catalogs`';
    case 'resource-unused':
      return `remove ${p.name}: the client would ask this addon for ${p.name} it does not have`;
    case 'resource-omitted':
      return `add ${p.name} to resources, ${derived}`;
    case 'resource-type-unused':
      return `remove ${p.type}: the client would ask this addon for ${p.name} of every ${p.type}`;
    case 'resource-types-omitted':
      return `add ${p.types.join(', ')} to its types, ${derived}`;
    case 'resource-prefix-unused':
      return `remove it: the client would ask this addon for ${p.name} of every id that starts with it`;
  }
}

/**
 * missing-field: a field the schema requires, a video's id or title, or the name of an item that
 * this addon describes (an item without one adds streams to a title another addon describes).
 */
export type MissingField =
  | { kind: 'field'; field: string; video: boolean; table?: boolean }
  | { kind: 'name'; because: NameNeeded; table?: boolean }
  /** An item without a name that adds neither streams nor subtitles. */
  | { kind: 'nothing-added'; table?: boolean }
  /** A table whose header has no column for a field every row needs (id, type): said once, not at each row. */
  | { kind: 'column'; column: string };

/** Why an item without a name must have one: what makes it a title this addon describes. */
export type NameNeeded =
  | { reason: 'videos' }
  | { reason: 'catalog'; catalog: string }
  /** The id starts like those of the titles the addon describes (`like`, one of them). */
  | { reason: 'described-prefix'; prefix: string; like: string }
  /**
   * A catalog with `items: all` lists the item's type, and the item adds nothing to a title
   * described elsewhere, or the catalog would list nothing without it.
   */
  | { reason: 'catalog-all'; catalog: string; type: string; why: 'nothing-added' | 'empty' }
  | { reason: 'field'; field: string };

function missingField(p: MissingField): string {
  if (p.kind === 'column') return `the table has no "${p.column}" column, and every item needs ${p.column === 'id' ? 'an id' : `a ${p.column}`}`;
  if (p.kind === 'field') return `"${p.field}" is required${p.video ? ' for a video without season and episode' : ''}`;
  if (p.kind === 'nothing-added')
    return 'an item without a name adds streams or subtitles to a title another addon describes, and this one has neither';
  const because = p.because;
  switch (because.reason) {
    case 'videos':
      return '"name" is required for an item with videos: an addon that lists the episodes describes the title';
    case 'catalog':
      return `"name" is required: catalog "${because.catalog}" lists this item, and shows it by its name`;
    case 'described-prefix':
      return `"name" is required: this addon describes the titles whose ids start with "${because.prefix}" (such as "${because.like}"), and this one has none`;
    case 'catalog-all':
      return because.why === 'nothing-added'
        ? `"name" is required: catalog "${because.catalog}" lists every ${because.type} (items: all), and this item has no streams or subtitles to add to a title another addon describes`
        : `"name" is required: catalog "${because.catalog}" lists every ${because.type} (items: all), and without names it would list none`;
    case 'field':
      return `"name" is required for an item with \`${because.field}\`: it describes the title, and only a title this addon describes has a meta`;
  }
}

function missingFieldHint(p: MissingField): string {
  if (p.kind === 'column') return COLUMN_HINTS[p.column] ?? `add a ${p.column} column`;
  // A table's fields are its columns: what to do is said of cells, not of YAML keys.
  if (p.kind === 'field' && p.table) return `fill in this row's ${p.field} cell`;
  if (p.kind === 'field') return `add ${p.field}: …${p.video ? ', or give the video a season and an episode' : ''}`;
  if (p.kind === 'nothing-added' && p.table) return 'fill in a stream cell (url, ytId, infoHash, …), or a name if this addon describes the title';
  if (p.kind === 'nothing-added') return 'add streams or subtitles, or a name if this addon describes the title';
  const elsewhere = p.table
    ? 'fill in its name cell (the name column) if this addon describes the title; if another addon describes it (Cinemeta, for IMDb ids tt…), fill in only its id, type and stream cells'
    : 'add name: … if this addon describes the title; if another addon describes it (Cinemeta, for IMDb ids tt…), give only id, type, streams and subtitles';
  const because = p.because;
  switch (because.reason) {
    case 'videos':
      return `${elsewhere}, in one item per episode with the episode's id ("tt0034167:1:1")`;
    case 'catalog':
      return `${elsewhere}, and ${p.table ? 'leave its catalogs cell empty' : 'no catalogs'}`;
    case 'described-prefix':
      return elsewhere;
    case 'catalog-all':
      return because.why === 'nothing-added'
        ? `${elsewhere}, or set \`items: listed\` on catalog "${because.catalog}"`
        : `${elsewhere}, and remove catalog "${because.catalog}"`;
    case 'field':
      return p.table ? `${elsewhere}, with its ${because.field} cell empty` : `${elsewhere}, without \`${because.field}\``;
  }
}

/** What a table's missing column holds, for the hint that asks for it. */
const COLUMN_HINTS: Partial<Record<string, string>> = {
  id: "add an id column with each item's id (pd:nosferatu-1922): it names the item's files, and rows of one id make one item",
  type: "add a type column with each row's type: movie, series, channel, tv, or one of your own",
};

function invalidValue(p: InvalidValue): string {
  switch (p.kind) {
    case 'schema':
    case 'quoted-number':
    case 'unquoted-number':
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
      return `"${p.id}" starts with none of the idPrefixes ${p.resource === undefined ? '' : `of ${p.resource} `}in addon.yaml (${p.listed}), so the client would never ask for it`;
    case 'variable-name':
      return `"\${${p.shown}}" is not a variable name`;
    default:
      return resourceMessage(p);
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
    case 'unquoted-number': {
      const field = p.field === undefined ? '' : `${p.field}: `;
      // A whole number reads back as written; `1.10` was read as 1.1, so it is not shown.
      return Number.isInteger(p.input)
        ? `write it in quotes (${field}"${p.input}"): without them YAML reads it as the number ${p.input}`
        : `write it in quotes, as you mean it (${field}"…"): without them YAML reads it as the number ${p.input}`;
    }
    case 'empty':
      return `write its ${p.entries ? 'entries' : 'fields'} on the lines below "${p.field}", indented further than it, or remove "${p.field}"`;
    case 'not-a-date':
      return DATE_FORMS;
    case 'relative-url':
      return 'the client rejects relative URLs; write https://… (or a local file path where the field allows one)';
    case 'own-field':
      return `move these ${p.field} to the videos they belong to`;
    case 'id-prefix':
      return p.resource === undefined
        ? `add a prefix of "${p.id}" to idPrefixes in addon.yaml, or remove idPrefixes to derive them`
        : `add a prefix of "${p.id}" to the idPrefixes of ${p.resource} in addon.yaml, or remove them to derive them`;
    case 'variable-name':
      return 'names are letters, digits and _; write $${…} for a literal ${…}';
    default:
      return resourceHint(p);
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
  'missing-field': { severity: error, message: missingField, hint: missingFieldHint },
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
        : 'check the spelling and that the path is relative to the folder of this file; URLs need their scheme (https://…)',
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
