// The catalog's words for the codes of tables (CSV content files, load/csv.ts): the file's syntax
// as a person who edits it in a spreadsheet or by hand reads it, and rows of one id that disagree.
import type { Severity } from './codes.js';

const error: Severity = 'error';

/** csv-syntax: what the parser or the header found, at the cell or character it is about. */
export type CsvSyntax =
  /** A quoted cell whose closing quote never comes: the rest of the file would be that cell. */
  | { kind: 'unclosed-quote' }
  /** A character after a quoted cell's closing quote, where a comma or the line's end belongs. */
  | { kind: 'after-quote'; found: string }
  /** A quote inside a cell that does not start with one. */
  | { kind: 'quote-in-cell' }
  | { kind: 'cell-count'; found: number; header: number }
  | { kind: 'empty-column' }
  | { kind: 'duplicate-column'; column: string }
  /** A header with semicolons and no comma: cells separated by semicolons. */
  | { kind: 'semicolons' }
  /** Any other failure of the parser: its own words. */
  | { kind: 'parser'; text: string };

function csvSyntax(p: CsvSyntax): string {
  switch (p.kind) {
    case 'unclosed-quote':
      return 'this quoted cell has no closing quote, so the rest of the file would be read as its text';
    case 'after-quote':
      return `${JSON.stringify(p.found)} after the closing quote of a quoted cell, where a comma or the end of the line belongs`;
    case 'quote-in-cell':
      return 'a quote inside a cell that does not start with one';
    case 'cell-count':
      return `this row has ${p.found} ${p.found === 1 ? 'cell' : 'cells'} and the header ${p.header}`;
    case 'empty-column':
      return 'a column of the header has no name';
    case 'duplicate-column':
      return `the header names the column "${p.column}" twice`;
    case 'semicolons':
      return 'the header has semicolons and no comma: the file looks separated by semicolons, and a table is separated by commas';
    case 'parser':
      return `the CSV parser failed here: ${p.text}`;
  }
}

function csvSyntaxHint(p: CsvSyntax): string | undefined {
  switch (p.kind) {
    case 'unclosed-quote':
      return 'end the cell with a quote; a quote inside a quoted cell is written twice: "Say ""hello"""';
    case 'after-quote':
    case 'quote-in-cell':
      return 'put the whole cell in quotes and write each quote inside it twice: "The ""Great"" Train Robbery"';
    case 'cell-count':
      return p.found > p.header
        ? 'a comma inside a value needs quotes around its cell ("Drama, Horror"); lists are separated by |'
        : 'give every row one cell per column of the header; an empty cell is nothing between two commas';
    case 'empty-column':
      return 'name the column after an item field (see the README, "Tables (CSV)"), or remove it, with its cells';
    case 'duplicate-column':
      return 'keep one of the two columns; a list field takes several values in one cell, separated by |';
    case 'semicolons':
      return 'save it as comma-separated: in Excel, "CSV UTF-8 (Comma delimited)"; in LibreOffice, with "," as the field delimiter';
    case 'parser':
      return undefined;
  }
}

/** csv-rows-differ: a later row of an id gives one of the item's fields another value than an earlier row. */
export interface CsvRowsDiffer {
  id: string;
  column: string;
  value: string;
  first: string;
}

export const TABLE_MESSAGES = {
  'csv-syntax': { severity: error, message: csvSyntax, hint: csvSyntaxHint },
  'csv-rows-differ': {
    severity: error,
    message: (p: CsvRowsDiffer) =>
      `rows of id "${p.id}" make one item, and this row gives "${p.column}" the value ${JSON.stringify(p.value)} where an earlier row gives ${JSON.stringify(p.first)}`,
    hint: () =>
      'the rows of one id add streams to one item: leave the other cells of the later rows empty, or give them the same values; for another item, give it an id of its own',
  },
} as const;
