// Part of the CSV source (csv.ts): where the cells of one row are in a file's text. csv-parse
// gives the values and where each row ends; the cells' own places, which diagnostics point at,
// come from reading the row again by the same rules (RFC 4180: comma, double quote, LF or CRLF).
// On a row the parser refused, the same reading finds the character it stumbled on.

/** One cell of a row: offsets in the file's text, `start` at the opening quote of a quoted cell. */
export interface Cell {
  start: number;
  /** Just past the cell: its closing quote, or its last character. */
  end: number;
  quoted: boolean;
}

/** A row's cells, where it ends (past its line break), and the first character that breaks the rules. */
export interface Row {
  cells: Cell[];
  end: number;
  fault?: { kind: 'unclosed-quote' | 'after-quote' | 'quote-in-cell'; offset: number };
}

/** The start of the row at or after `offset`: empty lines are skipped, as the parser skips them. */
export function rowStart(text: string, offset: number): number {
  let at = offset;
  for (;;) {
    if (text[at] === '\n') at++;
    else if (text[at] === '\r' && text[at + 1] === '\n') at += 2;
    else return at;
  }
}

/** The cells of the row that starts at `start`. */
export function readRow(text: string, start: number): Row {
  const cells: Cell[] = [];
  let fault: Row['fault'];
  let at = start;
  for (;;) {
    const cell: Cell = { start: at, end: at, quoted: text[at] === '"' };
    if (cell.quoted) {
      at++;
      for (;;) {
        if (at >= text.length) {
          fault ??= { kind: 'unclosed-quote', offset: cell.start };
          break;
        }
        if (text[at] === '"' && text[at + 1] === '"') at += 2;
        else if (text[at] === '"') {
          at++;
          break;
        } else at++;
      }
      cell.end = at;
      // Anything up to the next comma or line break is past the closing quote.
      if (at < text.length && !isBreak(text, at) && text[at] !== ',') fault ??= { kind: 'after-quote', offset: at };
      while (at < text.length && !isBreak(text, at) && text[at] !== ',') at++;
    } else {
      while (at < text.length && !isBreak(text, at) && text[at] !== ',') {
        if (text[at] === '"') fault ??= { kind: 'quote-in-cell', offset: at };
        at++;
      }
      cell.end = at;
    }
    cells.push(cell);
    if (text[at] === ',') {
      at++;
      continue;
    }
    const end = at >= text.length ? at : at + (text[at] === '\r' ? 2 : 1);
    return fault ? { cells, end, fault } : { cells, end };
  }
}

function isBreak(text: string, at: number): boolean {
  return text[at] === '\n' || (text[at] === '\r' && text[at + 1] === '\n');
}

/**
 * The offset in the text of the character at `index` in the cell's value: past the opening
 * quote, a doubled quote and a CRLF each one character of the value.
 */
export function valueOffset(text: string, cell: Cell, index: number): number {
  if (!cell.quoted) return Math.min(cell.start + index, cell.end);
  let at = cell.start + 1;
  for (let i = 0; i < index && at < cell.end; i++) {
    at += (text[at] === '"' && text[at + 1] === '"') || (text[at] === '\r' && text[at + 1] === '\n') ? 2 : 1;
  }
  return at;
}

/** Offsets where the text's lines start (after each LF). */
export function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

/** The 1-based line and column of an offset, from the line starts. */
export function position(starts: readonly number[], offset: number): { line: number; column: number } {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return { line: low + 1, column: offset - starts[low]! + 1 };
}
