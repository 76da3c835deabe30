// The catalog's words for M3U playlists (`*.m3u`, `*.m3u8`, and `playlists` in addon.yaml): their
// malformed lines, the attributes they hold that no item field takes, and playlists that cannot be read.
import type { Severity } from './codes.js';

const error: Severity = 'error';
const warning: Severity = 'warning';

/** playlist-syntax: a line of a playlist that cannot be read as an entry. */
export type PlaylistSyntax =
  | { kind: 'url-without-extinf'; url: string }
  | { kind: 'extinf-without-url' }
  | { kind: 'unterminated-quote'; attribute: string }
  | { kind: 'no-comma' }
  | { kind: 'no-title' }
  | { kind: 'bad-attribute'; found: string }
  | { kind: 'bad-option'; found: string }
  | { kind: 'bad-header'; found: string };

/**
 * playlist-attribute: an `#EXTINF` attribute or `#EXTVLCOPT` option that the README does not list,
 * a tvg-id that cannot be a file name, an `#EXTHTTP` line, a header option after a URL rather than
 * before it (applied to that URL's channel, when it made one).
 */
export type PlaylistAttribute =
  | { kind: 'attribute'; name: string }
  | { kind: 'option'; name: string }
  | { kind: 'bad-id'; value: string; problem: string }
  /** A tvg-id whose id, prefix included (`bytes` long), is longer than a file name may be (`limit`). */
  | { kind: 'long-id'; value: string; prefix: string; bytes: number; limit: number }
  | { kind: 'exthttp' }
  /** `channel` the URL's above it, if it made one; `next` the one it went to, when `applied`. */
  | { kind: 'option-after-url'; option: string; urlLine: number; channel?: string; applied: boolean; next?: string };

/** hls-playlist: a playlist that carries a tag of an HLS playlist: a master's (`stream-inf`) or a media playlist's (`target-duration`). */
export interface HlsPlaylist {
  kind: 'stream-inf' | 'target-duration';
}

/** playlist-unreadable: a playlist addon.yaml names that cannot be read. */
export type PlaylistUnreadable =
  | { kind: 'status'; url: string; status: number }
  | { kind: 'timeout'; url: string; seconds: number }
  | { kind: 'network'; url: string; reason: string }
  | { kind: 'too-large'; url: string; limit: number }
  | { kind: 'file'; file: string; reason: string };

function syntax(p: PlaylistSyntax): string {
  switch (p.kind) {
    case 'url-without-extinf':
      return `the URL ${p.url} has no #EXTINF line before it: there is no channel for it`;
    case 'extinf-without-url':
      return 'this #EXTINF line has no URL line after it';
    case 'unterminated-quote':
      return `the value of ${p.attribute} opens a quote that does not close`;
    case 'no-comma':
      return 'this #EXTINF line has no comma before the channel name';
    case 'no-title':
      return 'this entry has no name: nothing after the comma, and no tvg-name';
    case 'bad-attribute':
      return `"${p.found}" is not an attribute: attributes are written key="value"`;
    case 'bad-option':
      return `#EXTVLCOPT takes key=value, not "${p.found}"`;
    case 'bad-header':
      return `the headers after | in a stream URL are Name=value pairs joined by &, not "${p.found}"`;
  }
}

function syntaxHint(p: PlaylistSyntax): string {
  switch (p.kind) {
    case 'url-without-extinf':
      return 'write #EXTINF:-1,<channel name> on the line before the URL';
    case 'extinf-without-url':
      return "put the channel's stream URL on the line after it, or remove the line";
    case 'unterminated-quote':
      return 'close the value with " before the next attribute or the comma; a quote inside a value is written \\"';
    case 'no-comma':
    case 'no-title':
      return 'end the line with a comma and the channel name: #EXTINF:-1 tvg-id="…",Channel name';
    case 'bad-attribute':
      return 'write key="value", with no space around =; quote values that hold spaces or commas';
    case 'bad-option':
      return 'write #EXTVLCOPT:http-user-agent=… or #EXTVLCOPT:http-referrer=…';
    case 'bad-header':
      return 'write the URL, |, then headers such as User-Agent=VLC&Referer=https%3A%2F%2Fexample.org%2F (values percent-encoded)';
  }
}

function unreadable(p: PlaylistUnreadable): string {
  switch (p.kind) {
    case 'status':
      return `the playlist ${p.url} cannot be read: the server answered HTTP ${p.status}`;
    case 'timeout':
      return `the playlist ${p.url} cannot be read: no answer within ${p.seconds} s`;
    case 'network':
      return `the playlist ${p.url} cannot be read: ${p.reason}`;
    case 'too-large':
      return `the playlist ${p.url} cannot be read: it is over ${p.limit / 1024 / 1024} MiB (--max-file-size)`;
    case 'file':
      return `the playlist file ${p.file} cannot be read: ${p.reason}`;
  }
}

function attributeMessage(p: PlaylistAttribute): string {
  switch (p.kind) {
    case 'attribute':
      return `the attribute ${p.name} is not read: no item field takes it`;
    case 'option':
      return `the option #EXTVLCOPT:${p.name} is not read: only http-user-agent and http-referrer become stream headers`;
    case 'bad-id':
      return `the tvg-id "${p.value}" ${p.problem}, and an id is a file name: the channel's id is made of its name instead`;
    case 'long-id':
      return `the tvg-id "${p.value.slice(0, 40)}…" is ${p.bytes - Buffer.byteLength(p.prefix)} bytes, so the id made of it with the prefix ${p.prefix} would be ${p.bytes}, and an id is a file name, of at most ${p.limit} bytes: the channel's id is made of its name instead`;
    case 'exthttp':
      return 'this #EXTHTTP line is not read: its headers are not set on the stream';
    case 'option-after-url': {
      const above = p.channel === undefined ? `line ${p.urlLine}` : `"${p.channel}" (line ${p.urlLine})`;
      if (!p.applied) return `this #EXTVLCOPT:${p.option} line comes after the URL of ${above}, and no channel follows it: it applies to none`;
      return `this #EXTVLCOPT:${p.option} line comes after the URL of ${above}: as VLC reads it, it applies to the channel after it${p.next === undefined ? '' : `, "${p.next}"`}`;
    }
  }
}

function attributeHint(p: PlaylistAttribute): string {
  switch (p.kind) {
    case 'bad-id':
      return 'write a tvg-id without "/" or "\\" (and not ending in a dot), or remove it to keep the id made of the name';
    case 'long-id':
      return `shorten the tvg-id to at most ${p.limit - Buffer.byteLength(p.prefix)} bytes (the prefix ${p.prefix} takes the rest), or remove it to keep the id made of the name`;
    case 'exthttp':
      return 'write the headers as #EXTVLCOPT:http-user-agent=… and #EXTVLCOPT:http-referrer=…, or after the URL: <url>|User-Agent=…&Referer=…';
    case 'option-after-url':
      return p.applied
        ? "this playlist puts such lines between a channel's #EXTINF line and its URL elsewhere: put this one there too, below the #EXTINF line of the channel it is for"
        : "move it between the #EXTINF line of the channel it is for and that channel's URL";
    case 'attribute':
    case 'option':
      return 'items are made of tvg-id, tvg-name, tvg-logo and group-title; the README ("Playlists") lists the attributes dropped without a word. Remove it, or ignore this warning';
  }
}

export const PLAYLIST_MESSAGES = {
  'playlist-syntax': {
    severity: error,
    message: (p: PlaylistSyntax) => syntax(p),
    hint: (p: PlaylistSyntax) => syntaxHint(p),
  },
  'playlist-attribute': {
    severity: warning,
    message: (p: PlaylistAttribute) => attributeMessage(p),
    hint: (p: PlaylistAttribute) => attributeHint(p),
  },
  'hls-playlist': {
    severity: error,
    message: (p: HlsPlaylist) =>
      p.kind === 'stream-inf'
        ? 'this is an HLS stream playlist (#EXT-X-STREAM-INF: a master playlist, the renditions of one stream), not a list of channels'
        : 'this is an HLS stream playlist (#EXT-X-TARGETDURATION: a media playlist, the segments of one stream), not a list of channels',
    hint: () =>
      'addon-gen does not publish HLS media from the content folder: host the stream elsewhere and link its URL (a stream url, or a URL line of a channel playlist), or keep its files out of the content folder (a folder whose name starts with . is skipped)',
  },
  'duplicate-playlist': {
    severity: error,
    message: (p: { file: string; first: number }) => `the playlist file ${p.file} is already listed, in playlists[${p.first}]`,
    hint: () => 'a playlist has one type, id prefix and catalog: keep one of the two entries, with the settings its channels should have',
  },
  'playlist-unreadable': {
    severity: error,
    message: (p: PlaylistUnreadable) => unreadable(p),
    hint: (p: PlaylistUnreadable) =>
      p.kind === 'file'
        ? 'name a .m3u or .m3u8 file inside the content folder, relative to addon.yaml'
        : 'check the URL in a browser; a build with a URL playlist needs the network, and fails rather than publish a playlist it could not read',
  },
} as const;
