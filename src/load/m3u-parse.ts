// Part of the playlist source (m3u.ts): an M3U / M3U8 playlist's text read into entries, each
// with the lines and columns it came from, and the problems of its malformed lines. Pure: text
// in, values out; ids, merging and the addon.yaml settings are m3u.ts's business.
import { MAX_PROBLEMS_PER_FILE, type HlsPlaylist, type PlaylistAttribute, type PlaylistSyntax } from '../diagnostics/index.js';
import { fileNameProblem, MAX_NAME_BYTES } from '../shared/paths.js';

/** The attributes of `#EXTINF` that make an item (README, "Playlists"). */
export const USED_ATTRIBUTES = ['tvg-id', 'tvg-name', 'tvg-logo', 'group-title'] as const;

/**
 * Attributes players and EPG tools use that a Stremio item has no field for: read and dropped
 * without a word. The README lists them; any other attribute is a warning.
 */
export const IGNORED_ATTRIBUTES = [
  'tvg-chno',
  'tvg-shift',
  'tvg-language',
  'tvg-country',
  'tvg-url',
  'tvg-rec',
  'tvg-type',
  'channel-id',
  'channel-number',
  'catchup',
  'catchup-days',
  'catchup-source',
  'catchup-type',
  'catchup-correction',
  'timeshift',
  'radio',
  'parent-code',
  'audio-track',
] as const;

/** `#EXTVLCOPT` options read and dropped without a word (player buffering). */
export const IGNORED_VLC_OPTIONS = ['network-caching', 'http-reconnect', 'http-continuous'] as const;

/** One attribute as written, where its name starts. */
export interface Attribute {
  value: string;
  column: number;
}

/** One `#EXTINF` entry and the URL line that ends it. */
export interface PlaylistEntry {
  /** The line of `#EXTINF`. */
  line: number;
  attributes: Map<string, Attribute>;
  /** The text after the first comma outside quotes, trimmed; and where it starts. */
  title: string;
  titleColumn: number;
  /** `#EXTGRP`, the group of playlists without group-title. */
  group?: string;
  /** From `#EXTVLCOPT` lines since the last URL, and Kodi's `|Name=value&…` after the URL. */
  headers: { userAgent?: string; referrer?: string; other?: Record<string, string> };
  /** The line of the first `#EXTVLCOPT` that set a header, else the URL's line when it has headers. */
  headersLine?: number;
  url: string;
  urlLine: number;
}

/** An #EXTINF line read, waiting for its URL; `broken` when it has a syntax error that leaves no channel. */
type Extinf = Omit<PlaylistEntry, 'url' | 'urlLine'> & { broken?: boolean };

export type PlaylistProblem =
  | { code: 'playlist-syntax'; params: PlaylistSyntax; line: number; column: number }
  | { code: 'hls-playlist'; params: HlsPlaylist; line: number; column: number }
  | { code: 'playlist-attribute'; params: PlaylistAttribute; line: number; column: number };

export interface ParsedPlaylist {
  entries: PlaylistEntry[];
  /** The first MAX_PROBLEMS_PER_FILE errors and as many warnings, in line order. */
  problems: PlaylistProblem[];
  /** How many more errors and warnings there were: only counted, so that a hostile line costs no memory. */
  omitted: { error: number; warning: number };
  /** The first problem of each severity left out, for the summary's position. */
  firstOmitted: { error?: PlaylistProblem; warning?: PlaylistProblem };
  /** Offsets where lines start. */
  lineStarts: number[];
}

const KNOWN = new Set<string>([...USED_ATTRIBUTES, ...IGNORED_ATTRIBUTES]);
// Sticky: each is tried at one offset of the line (matchAt), never on a copy of the rest of it,
// so that a line of megabytes of attributes or quotes is read in linear time.
const KEY = /[A-Za-z0-9_:.-]+/y;
const WORD = /[^\s,]*/y;
/** A quote that closes a value: before a comma, another attribute (even with no space), or the end of the line. */
const CLOSING: Record<string, RegExp> = {
  '"': /"(?=[ \t]*,|[ \t]*[A-Za-z0-9_:.-]+=|[ \t]*$)/y,
  "'": /'(?=[ \t]*,|[ \t]*[A-Za-z0-9_:.-]+=|[ \t]*$)/y,
};

/** What the sticky `pattern` matches at `at` in `text`, or undefined. */
function matchAt(pattern: RegExp, text: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(text)?.[0];
}

/**
 * Reads a playlist. A byte order mark and CRLF line ends are allowed. `idPrefix` is the prefix of
 * its channels' ids (m3u.ts, PlaylistSettings), which counts in the length of a tvg-id's id.
 */
export function parsePlaylist(text: string, idPrefix = 'iptv:'): ParsedPlaylist {
  const source = text.replace(/^\uFEFF/, '');
  const lineStarts = [0];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const hls = hlsTag(source, lineStarts);
  // Its segments and renditions would each be a line without a channel: the one problem is what the file is.
  if (hls) return { entries: [], problems: [hls], omitted: { error: 0, warning: 0 }, firstOmitted: {}, lineStarts };
  const entries: PlaylistEntry[] = [];
  const kept: PlaylistProblem[] = [];
  const counts = { error: 0, warning: 0 };
  const omitted = { error: 0, warning: 0 };
  const firstOmitted: ParsedPlaylist['firstOmitted'] = {};
  // As DiagnosticList keeps them: past the limit of a severity, a problem is only counted.
  const problems = {
    push(p: PlaylistProblem) {
      const severity = p.code === 'playlist-syntax' ? 'error' : 'warning';
      if (counts[severity]++ < MAX_PROBLEMS_PER_FILE) kept.push(p);
      else {
        omitted[severity]++;
        firstOmitted[severity] ??= p;
      }
    },
  };
  let pending: Extinf | undefined;
  let headers: PlaylistEntry['headers'] = {};
  let headersLine: number | undefined;
  let group: string | undefined;
  /** The last URL line and the entry it ended, until the next #EXTINF. */
  let afterUrl: { line: number; entry?: PlaylistEntry } | undefined;
  const displaced = new DisplacedOptions(problems);
  for (const [index, start] of lineStarts.entries()) {
    const end = index + 1 < lineStarts.length ? lineStarts[index + 1]! - 1 : source.length;
    const raw = source.slice(start, end).replace(/\r$/, '');
    const line = index + 1;
    const text = raw.trim();
    const column = raw.length - raw.trimStart().length + 1;
    if (text === '') continue;
    if (/^#EXTINF:/i.test(text)) {
      if (pending) problems.push({ code: 'playlist-syntax', params: { kind: 'extinf-without-url' }, line: pending.line, column: 1 });
      pending = readExtinf(text, line, column, idPrefix, problems);
      afterUrl = undefined;
    } else if (/^#EXTVLCOPT:/i.test(text)) {
      const option = readOption(text, line, column, problems);
      if (option === undefined) continue;
      displaced.seen({ line, column, option: option.name }, pending !== undefined, afterUrl);
      headers[option.header] = option.value;
      headersLine ??= line;
    } else if (/^#EXTHTTP:/i.test(text)) {
      problems.push({ code: 'playlist-attribute', params: { kind: 'exthttp' }, line, column });
    } else if (/^#EXTGRP:/i.test(text)) {
      group = text.slice('#EXTGRP:'.length).trim() || undefined;
    } else if (text.startsWith('#')) {
      // #EXTM3U, #PLAYLIST and any other comment: nothing an item needs.
    } else {
      afterUrl = { line };
      if (!pending) {
        problems.push({ code: 'playlist-syntax', params: { kind: 'url-without-extinf', url: text }, line, column });
      } else if (!pending.broken) {
        const { broken: _broken, ...read } = pending;
        // Kodi's headers after the URL: `http://…/a.m3u8|User-Agent=VLC&Referer=https%3A%2F%2Fe.org%2F`.
        const bar = text.indexOf('|');
        const url = bar === -1 ? text : text.slice(0, bar).trimEnd();
        if (
          bar !== -1 &&
          readUrlHeaders(text.slice(bar + 1), headers, (found) =>
            problems.push({ code: 'playlist-syntax', params: { kind: 'bad-header', found }, line, column: column + bar + 1 }),
          )
        ) {
          headersLine ??= line;
        }
        afterUrl.entry = {
          ...read,
          ...(group !== undefined && { group }),
          headers,
          ...(headersLine !== undefined && { headersLine }),
          url,
          urlLine: line,
        };
        entries.push(afterUrl.entry);
      }
      // A URL that makes no channel takes the options before it along.
      displaced.went(afterUrl.entry);
      pending = undefined;
      headers = {};
      headersLine = undefined;
      group = undefined;
    }
  }
  if (pending) problems.push({ code: 'playlist-syntax', params: { kind: 'extinf-without-url' }, line: pending.line, column: 1 });
  displaced.end();
  kept.sort((a, b) => a.line - b.line || a.column - b.column); // reading order: end() adds some last
  return { entries, problems: kept, omitted, firstOmitted, lineStarts };
}

/**
 * The first tag that only an HLS playlist has: #EXT-X-TARGETDURATION (a media playlist, the
 * segments of one stream) or #EXT-X-STREAM-INF (a master playlist, its renditions). Both share
 * the .m3u8 name and #EXTINF with channel lists, which never carry either.
 */
function hlsTag(source: string, lineStarts: readonly number[]): PlaylistProblem | undefined {
  const found = /^[ \t]*(#EXT-X-(?:TARGETDURATION|STREAM-INF))\b/im.exec(source);
  if (!found) return undefined;
  const offset = found.index + found[0].length - found[1]!.length;
  let line = 0;
  while (line + 1 < lineStarts.length && lineStarts[line + 1]! <= offset) line++;
  const kind = found[1]!.toUpperCase() === '#EXT-X-STREAM-INF' ? 'stream-inf' : 'target-duration';
  return { code: 'hls-playlist', params: { kind }, line: line + 1, column: offset - lineStarts[line]! + 1 };
}

/**
 * #EXTVLCOPT lines after a URL and before the next #EXTINF. VLC gives them to the next URL, and so
 * does this: some playlists put each channel's lines above its #EXTINF. In one that also puts
 * them between a channel's #EXTINF and its URL, they may be meant for the channel above: said.
 */
class DisplacedOptions {
  private lines: { line: number; column: number; option: string; urlLine: number; channel?: string }[] = [];
  private applied: PlaylistProblem[] = []; // went to the next channel: said at the end, if at all
  private between = false;

  constructor(private readonly problems: { push(p: PlaylistProblem): void }) {}

  /** An option line, between an #EXTINF and its URL, or after the URL `afterUrl`. */
  seen(at: { line: number; column: number; option: string }, between: boolean, afterUrl: { line: number; entry?: PlaylistEntry } | undefined) {
    if (between) this.between = true;
    else if (afterUrl !== undefined) {
      const channel = afterUrl.entry && channelName(afterUrl.entry);
      this.lines.push({ ...at, urlLine: afterUrl.line, ...(channel !== undefined && { channel }) });
    }
  }

  /** The lines since the last URL went to `next`; undefined: to none (a URL that makes no channel, or the end). */
  went(next: PlaylistEntry | undefined) {
    if (this.lines.length === 0) return;
    const name = next && channelName(next);
    const to = next ? { applied: true, ...(name !== undefined && { next: name }) } : { applied: false };
    for (const { line, column, ...params } of this.lines) {
      const problem: PlaylistProblem = { code: 'playlist-attribute', params: { kind: 'option-after-url', ...params, ...to }, line, column };
      if (next) this.applied.push(problem);
      else this.problems.push(problem);
    }
    this.lines = [];
  }

  /** The end of the file: the lines that went to the next channel are said if it also puts them after #EXTINF. */
  end() {
    this.went(undefined);
    if (this.between) for (const problem of this.applied) this.problems.push(problem);
  }
}

/** What a channel is called in a message: its title, else its tvg-name. */
function channelName(entry: PlaylistEntry): string | undefined {
  return entry.title || entry.attributes.get('tvg-name')?.value;
}

/**
 * An `#EXTVLCOPT:name=value` line's header, or undefined for an option that sets none: a malformed
 * one, and one that is not read, are reported; those dropped without a word are not.
 */
function readOption(
  text: string,
  line: number,
  column: number,
  problems: { push(p: PlaylistProblem): void },
): { name: string; header: 'userAgent' | 'referrer'; value: string } | undefined {
  const option = text.slice('#EXTVLCOPT:'.length).trim();
  const eq = option.indexOf('=');
  if (eq <= 0) {
    problems.push({ code: 'playlist-syntax', params: { kind: 'bad-option', found: option }, line, column });
    return undefined;
  }
  const name = option.slice(0, eq).trim().toLowerCase();
  const value = unquote(option.slice(eq + 1).trim());
  if (name === 'http-user-agent') return { name, header: 'userAgent', value };
  if (name === 'http-referrer' || name === 'http-referer') return { name, header: 'referrer', value };
  if (!(IGNORED_VLC_OPTIONS as readonly string[]).includes(name)) {
    problems.push({ code: 'playlist-attribute', params: { kind: 'option', name }, line, column: column + '#EXTVLCOPT:'.length });
  }
  return undefined;
}

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/**
 * Kodi's `Name=value&Name=value` after a URL's `|` (values percent-encoded) into `headers`:
 * User-Agent and Referer (or Referrer) as #EXTVLCOPT sets them, any other in `other`. Returns
 * whether it set one; a pair that is not `Name=value` is reported.
 */
function readUrlHeaders(suffix: string, headers: PlaylistEntry['headers'], report: (found: string) => void): boolean {
  let set = false;
  for (const pair of suffix.split('&')) {
    if (pair.trim() === '') continue;
    const eq = pair.indexOf('=');
    const name = eq <= 0 ? '' : pair.slice(0, eq).trim();
    if (!HEADER_NAME.test(name)) {
      report(pair.length > 40 ? `${pair.slice(0, 40)}…` : pair);
      continue;
    }
    let value = pair.slice(eq + 1);
    try {
      value = decodeURIComponent(value);
    } catch {
      // Not percent-encoding: the value as written.
    }
    const lower = name.toLowerCase();
    if (lower === 'user-agent') headers.userAgent = value;
    else if (lower === 'referer' || lower === 'referrer') headers.referrer = value;
    else headers.other = { ...headers.other, [name]: value };
    set = true;
  }
  return set;
}

/** `"value"` as value; anything else as it is. */
function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}

/**
 * One `#EXTINF:<duration> key="value" …,Title` line: the duration, the attributes (quoted values
 * may hold commas, `&`, and quotes, escaped as `\"` or not), then the title after the first comma
 * outside quotes. `column` is where the line's text starts.
 */
function readExtinf(text: string, line: number, column: number, idPrefix: string, problems: { push(p: PlaylistProblem): void }): Extinf {
  const attributes = new Map<string, Attribute>();
  const entry: Extinf = { line, attributes, title: '', titleColumn: column, headers: {} };
  const syntax = (params: PlaylistSyntax, at: number) => problems.push({ code: 'playlist-syntax', params, line, column: column + at });
  // Without its name, the entry would be one more error (a missing name): its line's is enough.
  const broken = (params: PlaylistSyntax, at: number) => {
    syntax(params, at);
    entry.broken = true;
    return entry;
  };
  let i = '#EXTINF:'.length;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  // The duration is not used: whatever it is (-1, 0, empty, a word), unless it is an attribute.
  const duration = matchAt(WORD, text, i) ?? '';
  if (!duration.includes('=')) i += duration.length;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (i >= text.length) {
      return broken({ kind: 'no-comma' }, i);
    }
    if (text[i] === ',') break;
    const keyStart = i;
    const key = matchAt(KEY, text, i);
    if (key === undefined || text[i + key.length] !== '=') {
      const found = matchAt(WORD, text, i) || text[i]!;
      syntax({ kind: 'bad-attribute', found }, i);
      i += found.length;
      continue;
    }
    i += key.length + 1;
    let value: string;
    const quote = text[i];
    if (quote === '"' || quote === "'") {
      const close = closingQuote(text, i + 1, quote);
      if (close === undefined) {
        return broken({ kind: 'unterminated-quote', attribute: key }, i);
      }
      value = text.slice(i + 1, close).replaceAll(`\\${quote}`, quote);
      i = close + 1;
    } else {
      value = matchAt(WORD, text, i) ?? '';
      i += value.length;
    }
    const name = key.toLowerCase();
    if (!KNOWN.has(name)) problems.push({ code: 'playlist-attribute', params: { kind: 'attribute', name: key }, line, column: column + keyStart });
    if (attributes.has(name)) continue;
    const params = name === 'tvg-id' && value.trim() !== '' ? idProblem(value.trim(), idPrefix) : undefined;
    // An id that cannot be a file name: the channel's id is made of its name instead.
    if (params !== undefined) problems.push({ code: 'playlist-attribute', params, line, column: column + keyStart });
    else attributes.set(name, { value: value.trim(), column: column + keyStart });
  }
  const after = text.slice(i + 1);
  entry.title = after.trim();
  entry.titleColumn = column + i + 1 + (after.length - after.trimStart().length);
  if (entry.title === '' && !attributes.get('tvg-name')?.value) broken({ kind: 'no-title' }, i + 1);
  return entry;
}

/** Why a tvg-id cannot make an id, which is a file name: itself, or with its prefix, too long. */
function idProblem(value: string, idPrefix: string): PlaylistAttribute | undefined {
  const problem = fileNameProblem(value);
  if (problem !== undefined && Buffer.byteLength(value) <= MAX_NAME_BYTES) return { kind: 'bad-id', value, problem };
  const bytes = Buffer.byteLength(idPrefix + value);
  return bytes > MAX_NAME_BYTES ? { kind: 'long-id', value, prefix: idPrefix, bytes, limit: MAX_NAME_BYTES } : undefined;
}

/** The index of the `quote` that closes a value opened before `from`: not escaped, and where a value can end. */
function closingQuote(text: string, from: number, quote: '"' | "'"): number | undefined {
  for (let i = text.indexOf(quote, from); i !== -1; i = text.indexOf(quote, i + 1)) {
    if (text[i - 1] === '\\') continue;
    if (matchAt(CLOSING[quote]!, text, i) !== undefined) return i;
  }
  return undefined;
}
