// Content's text as a terminal or a CI log may safely show it: a source line cut to the
// terminal's width around a column, and control characters made visible.

/** The widest source line shown, in terminal columns, unless the format's options say otherwise. */
export const DEFAULT_WIDTH = 100;
const TAB_WIDTH = 4;

/**
 * A source line as a terminal shows it, and the caret's distance from its start, both in
 * terminal columns: tabs expanded to stops every TAB_WIDTH columns, East Asian wide characters
 * and emoji two columns, combining marks none, control characters shown as their symbols
 * (␛ for ESC). A line wider than `width` is cut around the column, the cuts marked with `…`.
 * `column` is 1-based and counts UTF-16 code units, like the YAML parser's positions.
 */
export function sourceExcerpt(line: string, column: number, width: number = DEFAULT_WIDTH): { text: string; caret: number } {
  const offset = Math.max(0, column - 1);
  // Intl.Segmenter takes quadratic time on a long string (400,000 characters: two minutes), and
  // a minified or hostile content file can be one long line: segment only a window around the
  // column, wide enough for `width` columns, and mark what was cut off.
  const reach = Math.max(width, 1) * 8;
  if (line.length > 2 * reach) {
    let start = Math.max(0, Math.min(offset, line.length) - reach);
    let end = Math.min(line.length, start + 2 * reach);
    if (start > 0 && /[\udc00-\udfff]/.test(line[start]!)) start--; // not half a surrogate pair
    if (end < line.length && /[\udc00-\udfff]/.test(line[end]!)) end++;
    const inner = sourceExcerpt(line.slice(start, end), offset - start + 1, width);
    const before = start > 0 && !inner.text.startsWith('…') ? '…' : '';
    const after = end < line.length && !inner.text.endsWith('…') ? '…' : '';
    return { text: `${before}${inner.text}${after}`, caret: inner.caret + before.length };
  }
  const cells: { text: string; at: number; width: number }[] = [];
  let total = 0;
  let caret: number | undefined;
  for (const { segment, index } of graphemes().segment(line)) {
    if (caret === undefined && index + segment.length > offset) caret = total;
    const shown = segment === '\t' ? ' '.repeat(TAB_WIDTH - (total % TAB_WIDTH)) : printable(segment);
    // A grapheme with characters made visible (CR LF is one) can become several: each is counted.
    const cellWidth =
      segment === '\t'
        ? shown.length
        : shown === segment
          ? displayWidth(shown)
          : [...graphemes().segment(shown)].reduce((sum, g) => sum + displayWidth(g.segment), 0);
    cells.push({ text: shown, at: total, width: cellWidth });
    total += cellWidth;
  }
  // A column past the end (a missing value at the end of a line) points after the last character.
  caret ??= total + (offset - line.length);
  if (total <= width) return { text: cells.map((c) => c.text).join(''), caret };

  // Cut to a window of `width` columns that shows the caret a third of the way in.
  const room = Math.max(1, width - 2); // the two `…`
  let start = Math.max(0, caret - Math.floor(room / 3));
  const end = Math.min(total, start + room);
  start = Math.max(0, end - room);
  const kept = cells.filter((c) => c.at >= start && c.at + c.width <= end);
  const first = kept[0]?.at ?? start;
  const before = first > 0 ? '…' : '';
  const last = kept.length > 0 ? kept[kept.length - 1]!.at + kept[kept.length - 1]!.width : end;
  const after = last < total ? '…' : '';
  return { text: `${before}${kept.map((c) => c.text).join('')}${after}`, caret: caret - first + before.length };
}

// Made when an excerpt is first shown: making it loads ICU's break rules, a cost to every run's
// start otherwise, and most runs show none (bench/README.md, "An edit's start").
let segmenter: Intl.Segmenter | undefined;
const graphemes = () => (segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' }));

/**
 * Terminal columns of a grapheme (one user-perceived character): 2 for East Asian wide and
 * fullwidth characters and emoji, 0 for a lone combining mark or invisible format character,
 * 1 otherwise. Close to wcwidth, without its tables.
 */
function displayWidth(grapheme: string): number {
  const code = grapheme.codePointAt(0) ?? 0;
  if (/^\p{Extended_Pictographic}/u.test(grapheme) && (/\p{Emoji_Presentation}/u.test(grapheme) || grapheme.includes('\uFE0F'))) return 2;
  if (/^\p{Regional_Indicator}/u.test(grapheme)) return 2;
  if (WIDE.some(([from, to]) => code >= from && code <= to)) return 2;
  if (/^[\p{Mn}\p{Me}\p{Cf}]+$/u.test(grapheme)) return 0;
  return 1;
}

/** Blocks of East Asian wide and fullwidth characters (Unicode's EastAsianWidth W and F). */
const WIDE: readonly [number, number][] = [
  [0x1100, 0x115f], // Hangul Jamo initials
  [0x2e80, 0x303e], // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
  [0x3041, 0x33ff], // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK compatibility
  [0x3400, 0x4dbf], // CJK unified ideographs extension A
  [0x4e00, 0x9fff], // CJK unified ideographs
  [0xa000, 0xa4cf], // Yi
  [0xa960, 0xa97f], // Hangul Jamo extended A
  [0xac00, 0xd7a3], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe10, 0xfe19], // vertical forms
  [0xfe30, 0xfe6f], // CJK compatibility forms, small form variants
  [0xff00, 0xff60], // fullwidth forms
  [0xffe0, 0xffe6], // fullwidth signs
  [0x1b000, 0x1b2ff], // Kana supplement and extensions, Nushu
  [0x1f200, 0x1f2ff], // enclosed ideographic supplement
  [0x20000, 0x3fffd], // CJK unified ideographs extensions B and later
];

/**
 * Text from content as a terminal or a CI log may safely show it: control characters made visible
 * (ESC as ␛, LF as ␊, CR as ␍, DEL as ␡; C1 controls such as NEL, and the bidirectional overrides
 * and isolates that reorder what is shown, as �), and the Unicode line and paragraph separators as
 * ␤. Content must not move the cursor, recolor the terminal, or start a line of its own: a CI log
 * reads a line that starts with `::error` as a workflow command, and a diagnostic is one line.
 * Tabs stay. With `newlines`, LF stays too, for messages addon-gen itself spreads over lines.
 * Each character shown in place of another takes one column, which the caret of an excerpt counts on.
 */
export function printable(text: string, options: { newlines?: boolean } = {}): string {
  return text.replace(options.newlines ? UNPRINTABLE_BUT_LF : UNPRINTABLE, (c) => {
    const code = c.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    if (code === 0x2028 || code === 0x2029) return '\u2424';
    return '\ufffd';
  });
}

/** All that printable() replaces but LF: the controls, the line separators, the bidi overrides and isolates. */
const UNPRINTABLE_CLASS = '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const UNPRINTABLE = new RegExp(`[\\u000a${UNPRINTABLE_CLASS}]`, 'g');
const UNPRINTABLE_BUT_LF = new RegExp(`[${UNPRINTABLE_CLASS}]`, 'g');
