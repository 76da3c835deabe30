// Stage 1, load: find the content files and parse them as YAML, keeping every node's position
// so that later stages can point at the exact line and column of a problem.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document } from 'yaml';
import type { Diagnostic, Location } from './diagnostics.js';

export const ADDON_FILE = 'addon.yaml';

export interface SourceFile {
  /** The path as shown to people: the content folder as given, joined with the relative path. */
  file: string;
  /** Path relative to the content folder, with forward slashes. */
  relative: string;
  absolute: string;
  text: string;
  lineCounter: LineCounter;
}

/** One YAML value that should be an item (or the addon settings), with the means to locate its parts. */
export interface SourceValue {
  source: SourceFile;
  document: Document;
  /** Path of this value inside its document: [] for a document that is one item, [i] in a list. */
  at: (string | number)[];
  value: unknown;
}

export interface Loaded {
  addon?: SourceValue;
  items: SourceValue[];
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

  const loaded: Loaded = { items: [], files: [], diagnostics: [] };
  const sources = await Promise.all(relatives.map((relative) => readSource(contentDir, relative)));
  for (const source of sources) {
    loaded.files.push(source);
    const values = parseValues(source, loaded.diagnostics);
    if (source.relative === ADDON_FILE) {
      if (values.length !== 1 || values[0]!.at.length !== 0) {
        loaded.diagnostics.push({
          code: 'not-an-item',
          severity: 'error',
          ...locate(source, values[0]?.document, []),
          message: 'addon.yaml must hold one mapping of settings',
          hint: 'write `id: …`, `version: …`, `name: …` at the top level; see the README',
        });
      } else {
        loaded.addon = values[0];
      }
    } else {
      loaded.items.push(...values);
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
  return { file: path.join(contentDir, relative), relative, absolute, text, lineCounter: new LineCounter() };
}

/** Parses one file into the values that should be items: a mapping, a list, or several documents. */
function parseValues(source: SourceFile, diagnostics: Diagnostic[]): SourceValue[] {
  const documents = parseAllDocuments(source.text, { lineCounter: source.lineCounter, uniqueKeys: true, prettyErrors: false });
  // A stream with no documents carries its own errors (a lone `---` is fine, a stray `]` is not).
  if ('empty' in documents) {
    for (const error of documents.errors) diagnostics.push(yamlError(source, error.code, error.message, error.pos[0]));
    return [];
  }
  const values: SourceValue[] = [];
  for (const document of documents) {
    if (document.errors.length > 0) {
      for (const error of document.errors) diagnostics.push(yamlError(source, error.code, error.message, error.pos[0]));
      continue;
    }
    let value: unknown;
    try {
      value = document.toJS({ maxAliasCount: 100 });
    } catch (error) {
      diagnostics.push({
        code: 'yaml-alias',
        severity: 'error',
        ...locate(source, document, []),
        message: `aliases could not be expanded: ${(error as Error).message}`,
        hint: 'write the values out, or use fewer nested aliases (at most 100 expansions per document)',
      });
      continue;
    }
    const contents = document.contents;
    if (contents === null || value === null || value === undefined) continue; // an empty document
    if (isSeq(contents) && Array.isArray(value)) {
      value.forEach((element, index) => values.push({ source, document, at: [index], value: element }));
    } else if (isMap(contents)) {
      values.push({ source, document, at: [], value });
    } else {
      diagnostics.push({
        code: 'not-an-item',
        severity: 'error',
        ...locate(source, document, []),
        message: `a content file holds items (mappings), but this document is ${isScalar(contents) ? 'a single value' : 'not a mapping'}`,
        hint: 'write an item as `id: …`, `type: …`, `name: …`, or a list of such items',
      });
    }
  }
  return values;
}

function yamlError(source: SourceFile, code: string, message: string, offset: number): Diagnostic {
  const { line, col } = source.lineCounter.linePos(offset);
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
export function locate(source: SourceFile, document: Document | undefined, nodePath: readonly (string | number)[], key?: string): Location {
  const at = (offset: number): Location => {
    const { line, col } = source.lineCounter.linePos(offset);
    return { file: source.file, line, column: col };
  };
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
    const start = line === 1 ? 0 : source.lineCounter.lineStarts[line - 1];
    if (start === undefined) return undefined;
    const end = source.text.indexOf('\n', start);
    return source.text.slice(start, end === -1 ? undefined : end).replace(/\r$/, '');
  };
}

function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
