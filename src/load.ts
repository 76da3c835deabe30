// Stage 1, load: find the content files and parse them as YAML. Values come from js-yaml, which
// is an order of magnitude faster; positions come from the `yaml` package, which keeps every
// node's range, and are computed only for files that need one (a problem to point at).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import jsYaml from 'js-yaml';
import { isMap, isScalar, LineCounter, parseAllDocuments, type Document } from 'yaml';
import type { Diagnostic, Location } from './diagnostics.js';

export const ADDON_FILE = 'addon.yaml';

export interface SourceFile {
  /** The path as shown to people: the content folder as given, joined with the relative path. */
  file: string;
  /** Path relative to the content folder, with forward slashes. */
  relative: string;
  absolute: string;
  text: string;
  /** The documents with node positions, parsed on first use (see `positions`). */
  parsed?: Positions;
}

/** One YAML value that should be an item (or the addon settings), with the means to locate its parts. */
export interface SourceValue {
  source: SourceFile;
  /** Index of the document in its file. */
  document: number;
  /** Path of this value inside its document: [] for a document that is one item, [i] in a list. */
  at: (string | number)[];
  value: unknown;
}

export interface Loaded {
  addon?: SourceValue;
  /**
   * The values of the item files, parsed one file at a time as they are iterated, so that only
   * one file's values are alive at once; iterate once. Problems found go to `diagnostics`.
   */
  items: Iterable<SourceValue>;
  files: SourceFile[];
  diagnostics: Diagnostic[];
}

/** Reads and parses every content file below `contentDir`: `addon.yaml` and the item files. */
export async function loadContent(contentDir: string): Promise<Loaded> {
  const relatives = await fg(['**/*.yaml', '**/*.yml'], {
    cwd: contentDir,
    dot: false,
    onlyFiles: true,
    ignore: ['**/node_modules/**'],
  });
  // fast-glob's order depends on the file system; path order makes builds reproducible.
  relatives.sort(compareCodePoints);

  const files = await Promise.all(relatives.map((relative) => readSource(contentDir, relative)));
  const diagnostics: Diagnostic[] = [];
  const itemFiles = files.filter((source) => source.relative !== ADDON_FILE);
  const loaded: Loaded = {
    items: {
      *[Symbol.iterator]() {
        for (const source of itemFiles) yield* parseValues(source, diagnostics);
      },
    },
    files,
    diagnostics,
  };
  for (const source of files) {
    if (source.relative === ADDON_FILE) {
      const values = parseValues(source, loaded.diagnostics);
      if (values.length !== 1 || values[0]!.at.length !== 0) {
        loaded.diagnostics.push({
          code: 'not-an-item',
          severity: 'error',
          ...locate(source, values[0]?.document ?? 0, []),
          message: 'addon.yaml must hold one mapping of settings',
          hint: 'write `id: …`, `version: …`, `name: …` at the top level; see the README',
        });
      } else {
        loaded.addon = values[0];
      }
    }
  }
  if (!relatives.includes(ADDON_FILE) && !loaded.diagnostics.some((d) => d.file?.endsWith(ADDON_FILE))) {
    loaded.diagnostics.push({
      code: 'missing-addon-yaml',
      severity: 'error',
      file: path.join(contentDir, ADDON_FILE),
      message: `${path.join(contentDir, ADDON_FILE)} does not exist`,
      hint: 'every content folder needs an addon.yaml with at least id, version and name; run the build on the folder that holds it',
    });
  }
  return loaded;
}

async function readSource(contentDir: string, relative: string): Promise<SourceFile> {
  const absolute = path.resolve(contentDir, relative);
  let text = await readFile(absolute, 'utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return { file: path.join(contentDir, relative), relative, absolute, text };
}

interface Positions {
  documents: Document[];
  lineCounter: LineCounter;
  /** Syntax errors, whether they belong to a document or to a stream that has none. */
  errors: { code: string; message: string; pos: [number, number] }[];
}

/** The file's documents with positions: parsed once, when the first location is asked for. */
function positions(source: SourceFile): Positions {
  if (!source.parsed) {
    const lineCounter = new LineCounter();
    const parsed = parseAllDocuments(source.text, { lineCounter, uniqueKeys: true, prettyErrors: false });
    // A stream with no documents carries its own errors (a lone `---` is fine, a stray `]` is not).
    source.parsed =
      'empty' in parsed
        ? { documents: [], lineCounter, errors: parsed.errors }
        : { documents: parsed, lineCounter, errors: parsed.flatMap((d) => d.errors) };
  }
  return source.parsed;
}

/**
 * An anchor (`&name`) makes aliases possible, and only the `yaml` package limits how far they
 * expand: such files take the careful path. `R&B` or `a=1&b=2` in a value is not an anchor.
 */
const ANCHOR = /(?:^|[\s[\]{},])&[^\s[\]{},]/;

/** The documents' values by the fast parser, or undefined when the file needs the careful path. */
function fastValues(text: string): unknown[] | undefined {
  if (ANCHOR.test(text)) return undefined;
  try {
    // CORE_SCHEMA, like `yaml`'s default: dates stay text (the schema checks them), `yes` is text.
    return jsYaml.loadAll(text, undefined, { schema: jsYaml.CORE_SCHEMA });
  } catch {
    return undefined; // syntax errors, duplicate keys: the careful path says where and why
  }
}

/** Parses one file into the values that should be items: a mapping, a list, or several documents. */
function parseValues(source: SourceFile, diagnostics: Diagnostic[]): SourceValue[] {
  const values = fastValues(source.text) ?? carefulValues(source, diagnostics);
  if (values === undefined) return [];
  const items: SourceValue[] = [];
  values.forEach((value, document) => {
    if (value === null || value === undefined) return; // an empty document
    if (Array.isArray(value)) {
      value.forEach((element, index) => items.push({ source, document, at: [index], value: element }));
    } else if (typeof value === 'object') {
      items.push({ source, document, at: [], value });
    } else {
      diagnostics.push({
        code: 'not-an-item',
        severity: 'error',
        ...locate(source, document, []),
        message: 'a content file holds items (mappings), but this document is a single value',
        hint: 'write an item as `id: …`, `type: …`, `name: …`, or a list of such items',
      });
    }
  });
  return items;
}

/** The `yaml` package's parse: every syntax error with its position, and a limit on aliases. */
function carefulValues(source: SourceFile, diagnostics: Diagnostic[]): unknown[] | undefined {
  const { documents, errors } = positions(source);
  for (const error of errors) diagnostics.push(yamlError(source, error.code, error.message, error.pos[0]));
  if (errors.length > 0) return undefined;
  const values: unknown[] = [];
  for (const [index, document] of documents.entries()) {
    try {
      values.push(document.toJS({ maxAliasCount: 100 }));
    } catch (error) {
      diagnostics.push({
        code: 'yaml-alias',
        severity: 'error',
        ...locate(source, index, []),
        message: `aliases could not be expanded: ${(error as Error).message}`,
        hint: 'write the values out, or use fewer nested aliases (at most 100 expansions per document)',
      });
      values.push(null);
    }
  }
  return values;
}

function yamlError(source: SourceFile, code: string, message: string, offset: number): Diagnostic {
  const { line, col } = positions(source).lineCounter.linePos(offset);
  const duplicate = code === 'DUPLICATE_KEY';
  return {
    code: duplicate ? 'duplicate-key' : 'yaml-syntax',
    severity: 'error',
    file: source.file,
    line,
    column: col,
    // The yaml package's messages end with a position we already give.
    message: message.replace(/ at line \d+, column \d+:?[\s\S]*$/, '').trim(),
    hint: duplicate ? 'remove one of the two keys; a later value would silently replace the earlier one' : undefined,
  };
}

/**
 * The location of the node at `nodePath` in a document, or of its nearest ancestor that exists
 * (a missing field points at the mapping that lacks it). With `key`, the location of that key.
 */
export function locate(source: SourceFile, documentIndex: number, nodePath: readonly (string | number)[], key?: string): Location {
  const { documents, lineCounter } = positions(source);
  const at = (offset: number): Location => {
    const { line, col } = lineCounter.linePos(offset);
    return { file: source.file, line, column: col };
  };
  const document = documents[documentIndex];
  if (!document) return at(0);
  if (key !== undefined) {
    const node = document.getIn(nodePath, true);
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
      const range = pair && isScalar(pair.key) ? pair.key.range : undefined;
      if (range) return at(range[0]);
    }
  }
  for (let length = nodePath.length; length >= 0; length--) {
    const node = length === 0 ? document.contents : document.getIn(nodePath.slice(0, length), true);
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
    if (range) return at(range[0]);
  }
  return at(0);
}

/** The text of one line of a loaded file, for printing it under a diagnostic. */
export function sourceLineOf(files: readonly SourceFile[]): (file: string, line: number) => string | undefined {
  const byName = new Map(files.map((f) => [f.file, f]));
  return (file, line) => {
    const source = byName.get(file);
    if (!source) return undefined;
    const start = line === 1 ? 0 : positions(source).lineCounter.lineStarts[line - 1];
    if (start === undefined) return undefined;
    const end = source.text.indexOf('\n', start);
    return source.text.slice(start, end === -1 ? undefined : end).replace(/\r$/, '');
  };
}

function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
