// Part of stage 1, load, the CSV source: tables (`*.csv`), one item per row, parsed by csv-parse
// into values shaped as a YAML item is, so that validate checks both alike. The header names the
// columns (item fields, lists separated by |, and the fields of one stream per row); rows of one
// id make one item with a stream of each. Cells are located by reading their row again
// (csv-cells.ts) where the parser says it ends.
import { createRequire } from 'node:module';
import type { CsvError, Info, Options } from 'csv-parse/sync';
import { closest, problem, type Diagnostic, type DiagnosticList, type Location } from '../diagnostics/index.js';
import { lineStartsOf, position, readRow, rowStart, valueOffset, type Cell, type Row } from './csv-cells.js';
import type { ContentSource, SourceFile, SourceValue } from './source.js';
import { CSV_NAME } from './file-names.js';

/** csv-parse, loaded when the first table is parsed: content without tables does without it. */
function csvParse(): typeof import('csv-parse/sync') {
  return (loaded ??= createRequire(import.meta.url)('csv-parse/sync'));
}

let loaded: typeof import('csv-parse/sync') | undefined;

/** What a column holds: a field of the item or of the row's stream, as text, a list or a number. */
interface Column {
  field: string;
  stream?: true;
  list?: true;
  number?: true;
}

const text = (field: string): Column => ({ field });
const stream = (field: string, number?: true): Column => (number ? { field, stream: true, number } : { field, stream: true });

/** The columns a table may have, by header name; README "Tables (CSV)" lists them. */
export const TABLE_COLUMNS: ReadonlyMap<string, Column> = new Map([
  ...['id', 'type', 'name', 'poster', 'posterShape', 'background', 'logo', 'description', 'releaseInfo', 'released', 'runtime'].map(
    (field) => [field, text(field)] as const,
  ),
  ['genres', { field: 'genres', list: true }],
  ['catalogs', { field: 'catalogs', list: true }],
  ...['url', 'ytId', 'infoHash', 'externalUrl', 'playerFrameUrl'].map((field) => [field, stream(field)] as const),
  ['fileIdx', stream('fileIdx', true)],
  ['streamName', stream('name')],
  ['streamDescription', stream('description')],
]);

/** The separator of a list field's values in its cell. */
export const LIST_SEPARATOR = '|';

/** What locating a part of a table's item needs, kept on its file (see SourceFile.table). */
export interface TableLayout {
  /** Each column's meaning by index; undefined for one that is unknown, unnamed or repeated. */
  columns: (Column | undefined)[];
  /** For each item (its document index), the offsets where its rows start, in file order. */
  items: number[][];
  lineStarts?: number[];
}

/** A record as csv-parse gives it with `info: true`. */
interface ParsedRecord {
  record: string[];
  info: Info;
}

/** An item as its rows make it: the value, its rows, and the first row's text of each item column. */
interface Building {
  value: Record<string, unknown> & { streams?: Record<string, unknown>[] };
  rows: number[];
  cells: Map<number, { text: string; row: number }>;
}

/** Every record of the file with the offset where it ends, or the problem that stopped the parser. */
function records(source: SourceFile): { rows: { record: string[]; end: number }[]; error?: CsvError | Error } {
  const bytes = Buffer.from(source.text);
  const rows: { record: string[]; end: number }[] = [];
  // The parser counts bytes; offsets in the text count UTF-16 units: converted as the rows come.
  let byte = 0;
  let offset = 0;
  const options: Options = {
    info: true,
    skip_empty_lines: true,
    record_delimiter: ['\r\n', '\n'],
    on_record: ({ record, info }: ParsedRecord) => {
      offset += bytes.toString('utf8', byte, info.bytes).length;
      byte = info.bytes;
      rows.push({ record, end: offset });
      return null; // kept here, not in the parser's own list
    },
  };
  try {
    csvParse().parse(bytes, options);
  } catch (error) {
    // The parser throws its own errors; anything else is a failure of it, told as such.
    return { rows, error: error instanceof Error ? error : new Error(String(error)) };
  }
  return { rows };
}

function parseTable(source: SourceFile, diagnostics: DiagnosticList): SourceValue[] {
  const layout: TableLayout = { columns: [], items: [] };
  source.table = layout;
  if (source.unreadable) return [];
  const at = (offset: number): Location => locationOf(source, offset);
  const semicolon = semicolonHeader(source.text);
  if (semicolon !== undefined) {
    // Read by commas, such a file is one unknown column and rows that miss every field: one problem says it.
    diagnostics.add(source.file, 'error', () => problem('csv-syntax', { kind: 'semicolons' }, at(semicolon)));
    return [];
  }
  const { rows, error } = records(source);
  if (error) {
    diagnostics.push(syntaxProblem(source, error, rows.at(-1)?.end ?? 0, rows[0]?.record.length));
    return [];
  }
  if (rows.length === 0) return [];
  layout.columns = header(source, rows[0]!.record, diagnostics);
  // Spreadsheets save the rows they once formatted as bare commas (`,,,`): nothing, as an empty line is.
  const blank = (r: number) => rows[r]!.record.every((cell) => cell === '');
  if (rows.some((_, r) => r > 0 && !blank(r)) && !hasRequiredColumns(source, rows[0]!.record, layout.columns, diagnostics)) return [];
  const built: Building[] = [];
  const byId = new Map<string, Building>();
  const idColumn = layout.columns.findIndex((c) => c?.field === 'id' && !c.stream);
  for (let r = 1; r < rows.length; r++) {
    if (blank(r)) continue;
    const row = rowStart(source.text, rows[r - 1]!.end);
    const cells = rows[r]!.record;
    const id = idColumn === -1 ? '' : (cells[idColumn] ?? '');
    const earlier = id === '' ? undefined : byId.get(id);
    const item: Building = earlier ?? { value: {}, rows: [], cells: new Map() };
    if (!earlier) {
      built.push(item);
      if (id !== '') byId.set(id, item);
    }
    item.rows.push(row);
    const streamValue: Record<string, unknown> = {};
    layout.columns.forEach((column, c) => {
      const cell = (cells[c] ?? '').replace(/\r\n/g, '\n');
      if (!column || cell === '') return;
      if (column.stream) {
        streamValue[column.field] = column.number && /^-?\d+(\.\d+)?$/.test(cell) ? Number(cell) : cell;
        return;
      }
      const first = item.cells.get(c);
      if (first === undefined) {
        item.cells.set(c, { text: cell, row });
        item.value[column.field] = column.list ? listTexts(cell) : cell;
      } else if (first.text !== cell && !(column.list && sameList(first.text, cell))) {
        const name = [...TABLE_COLUMNS].find(([, known]) => known === column)![0];
        diagnostics.add(source.file, 'error', () =>
          problem(
            'csv-rows-differ',
            { id, column: name, value: cell, first: first.text },
            { ...at(cellAt(source, row, c)), path: column.field, related: [{ ...at(cellAt(source, first.row, c)), message: 'the earlier row' }] },
          ),
        );
      }
    });
    if (Object.keys(streamValue).length > 0) (item.value.streams ??= []).push(streamValue);
  }
  layout.items = built.map((item) => item.rows);
  return built.map((item, document) => ({ source, document, at: [], value: item.value }));
}

/** Whether two cells of a list column hold the same entries: spaces around them do not count. */
function sameList(a: string, b: string): boolean {
  return listTexts(a).join(LIST_SEPARATOR) === listTexts(b).join(LIST_SEPARATOR);
}

/** A list cell's entries, each without the spaces around it; an empty one (`Drama|`) is dropped. */
function listTexts(cell: string): string[] {
  return cell
    .split(LIST_SEPARATOR)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/**
 * Where each entry of a list cell starts (listTexts's entries, for locating one), past the spaces
 * around it and the empty ones (a `|` too many, as a playlist's `;` too many).
 */
function listEntries(cell: string): { text: string; start: number }[] {
  const entries: { text: string; start: number }[] = [];
  let start = 0;
  for (const part of cell.split(LIST_SEPARATOR)) {
    const text = part.trim();
    if (text !== '') entries.push({ text, start: start + part.length - part.trimStart().length });
    start += part.length + LIST_SEPARATOR.length;
  }
  return entries;
}

/** The meaning of each column of the header, with a problem for each that has none. */
function header(source: SourceFile, names: string[], diagnostics: DiagnosticList): (Column | undefined)[] {
  const cells = readRow(source.text, rowStart(source.text, 0)).cells;
  const at = (c: number) => locationOf(source, cells[c]?.start ?? 0);
  const known = [...TABLE_COLUMNS.keys()];
  const seen = new Set<string>();
  return names.map((name, c) => {
    const column = TABLE_COLUMNS.get(name);
    // Made when shown: a header of a million unknown columns costs little more than counting them.
    const report = (make: () => Diagnostic) => diagnostics.add(source.file, 'error', make);
    if (name === '') {
      report(() => problem('csv-syntax', { kind: 'empty-column' }, at(c)));
    } else if (seen.has(name)) {
      report(() => problem('csv-syntax', { kind: 'duplicate-column', column: name }, { ...at(c), path: name }));
    } else if (!column) {
      report(() =>
        problem(
          'unknown-field',
          { key: name, suggestion: closest(name.trim(), known), emptyParent: undefined, renamed: undefined, known },
          { ...at(c), path: name },
        ),
      );
    }
    seen.add(name);
    // A column named twice is read once, from the first.
    return names.indexOf(name) === c ? column : undefined;
  });
}

/**
 * The first semicolon of a header that has semicolons and no comma: a file saved with semicolons
 * between cells, as Excel does where the comma is the decimal mark.
 */
function semicolonHeader(text: string): number | undefined {
  const start = rowStart(text, 0);
  const end = text.indexOf('\n', start);
  const line = text.slice(start, end === -1 ? text.length : end);
  const semicolon = line.indexOf(';');
  return semicolon !== -1 && !line.includes(',') ? start + semicolon : undefined;
}

/** The columns every row needs: a table cannot give an item its id or type any other way. */
const REQUIRED_COLUMNS = ['id', 'type'];

/**
 * Whether the header has each required column; one missing is one problem at the end of the
 * header, where a column would be added, and none at each row. A name the header misspells
 * ("Type") already has its did-you-mean, which says enough.
 */
function hasRequiredColumns(source: SourceFile, names: string[], columns: (Column | undefined)[], diagnostics: DiagnosticList): boolean {
  const known = [...TABLE_COLUMNS.keys()];
  const missing = REQUIRED_COLUMNS.filter((field) => !columns.some((column) => column?.field === field && !column.stream));
  for (const field of missing) {
    if (names.some((name) => !TABLE_COLUMNS.has(name) && closest(name.trim(), known) === field)) continue;
    const end = readRow(source.text, rowStart(source.text, 0)).cells.at(-1)!.end;
    diagnostics.add(source.file, 'error', () =>
      problem('missing-field', { kind: 'column', column: field }, { ...locationOf(source, end), path: field }),
    );
  }
  return missing.length === 0;
}

/** csv-syntax where the parser stopped: in the row that starts after the last one it read. */
function syntaxProblem(source: SourceFile, error: CsvError | Error, after: number, columns: number | undefined) {
  const start = rowStart(source.text, after);
  const row = readRow(source.text, start);
  const at = (offset: number) => locationOf(source, offset);
  if (error instanceof csvParse().CsvError && error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH' && columns !== undefined) {
    const found = row.cells.length;
    // Too many: the first cell past the header's; too few: where the next cell would start.
    const offset = found > columns ? row.cells[columns]!.start : row.cells.at(-1)!.end;
    return problem('csv-syntax', { kind: 'cell-count', found, header: columns }, at(offset));
  }
  if (row.fault) {
    const { kind, offset } = row.fault;
    if (kind === 'after-quote') return problem('csv-syntax', { kind, found: source.text[offset]! }, at(offset));
    return problem('csv-syntax', { kind }, at(offset));
  }
  return problem('csv-syntax', { kind: 'parser', text: error.message }, at(start));
}

function lineStarts(source: SourceFile): number[] {
  const layout = (source.table ??= { columns: [], items: [] });
  return (layout.lineStarts ??= lineStartsOf(source.text));
}

function locationOf(source: SourceFile, offset: number): Location {
  return { file: source.file, ...position(lineStarts(source), offset) };
}

function cellValue(text: string, cell: Cell): string {
  if (!cell.quoted) return text.slice(cell.start, cell.end);
  return text
    .slice(cell.start + 1, cell.end - 1)
    .replace(/""/g, '"')
    .replace(/\r\n/g, '\n');
}

/** Where column `c` of the row at `row` starts, or the row's start when it has no such cell. */
function cellAt(source: SourceFile, row: number, c: number): number {
  return readRow(source.text, row).cells[c]?.start ?? row;
}

/**
 * The location of a part of an item (see ContentSource.locate): a field's cell (in the first of
 * the item's rows that fills it), a list entry inside its cell, a stream's cell in the row of
 * that stream. What has no cell points at the start of the item's first row.
 */
function locate(source: SourceFile, document: number, nodePath: readonly (string | number)[], key?: string): Location {
  const { text } = source;
  const layout = source.table;
  const rows = layout?.items[document];
  if (!layout || !rows || rows.length === 0) return locationOf(source, 0);
  const [field, index, inner] = key === undefined ? nodePath : [...nodePath, key];
  const filled = (row: Row, c: number) => row.cells[c] !== undefined && cellValue(text, row.cells[c]) !== '';
  const here = (offset: number) => locationOf(source, offset);
  if (field === 'streams' && typeof index === 'number') {
    const streamColumns = layout.columns.flatMap((column, c) => (column?.stream ? [c] : []));
    const streamRows = rows.map((offset) => readRow(text, offset)).filter((row) => streamColumns.some((c) => filled(row, c)));
    const row = streamRows[index];
    if (!row) return here(rows[0]!);
    const named = layout.columns.findIndex((column) => column?.stream && column.field === inner);
    const c = named !== -1 && filled(row, named) ? named : streamColumns.find((s) => filled(row, s));
    return here(c === undefined ? row.cells[0]!.start : row.cells[c]!.start);
  }
  const c = layout.columns.findIndex((column) => column && !column.stream && column.field === field);
  if (c === -1) return here(rows[0]!);
  const row = rows.map((offset) => readRow(text, offset)).find((r) => filled(r, c)) ?? readRow(text, rows[0]!);
  const cell = row.cells[c];
  if (!cell) return here(rows[0]!);
  if (typeof index !== 'number' || !layout.columns[c]!.list) return here(cell.start);
  // A list entry: where its text starts in the cell, past the spaces and empty entries the value drops.
  const entries = listEntries(cellValue(text, cell));
  return here(valueOffset(text, cell, entries[Math.min(index, entries.length - 1)]?.start ?? 0));
}

/** Tables: each `.csv` file parsed on this thread, as its turn comes (csv-parse is fast enough not to need workers). */
export const csvSource: ContentSource = {
  takes: (name) => CSV_NAME.test(name),
  async *parseItemFiles(files, diagnostics) {
    for (const file of files) yield parseTable(file, diagnostics);
  },
  parseFile: parseTable,
  locate,
  lineStarts,
};
