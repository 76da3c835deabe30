// Part of load (read.ts): a content file's bytes as its text, and the problem when they are not
// UTF-8 text. A CLI edit's texts are decoded only when first used: it hashes every file a checkout
// rewrote, and parses the few it changed.
import { isUtf8 } from 'node:buffer';
import { problem, type Diagnostic } from '../diagnostics/index.js';
import { sha1 } from '../shared/fingerprint.js';
import type { ContentText } from './read.js';

/**
 * Sets the file's text, without a UTF-8 byte order mark, and returns the problem when the bytes
 * are not UTF-8 text: a NUL byte (an image or archive named .yaml), UTF-16 (its byte order mark),
 * or a byte sequence that is not UTF-8 (Latin-1, Windows-1252), at the first offending byte.
 * `lazy`: a text that is its bytes is decoded when first used (decodedWhenUsed).
 */
export function decode(bytes: Buffer, source: ContentText, lazy: boolean): Diagnostic | undefined {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  const nul = bytes.indexOf(0, bom);
  const bad = utf16 ? 0 : nul === -1 ? (isUtf8(bytes) ? -1 : firstInvalidUtf8(bytes, bom)) : -1;
  if (nul === -1 && bad === -1) {
    // Without a lone CR (below) the bytes are the text's UTF-8, and hash as it does.
    if (lazy && !hasLoneCr(bytes, bom)) return void decodedWhenUsed(source, bytes.subarray(bom));
    source.text = bytes.toString('utf8', bom);
    // A lone CR ends a line in YAML, and js-yaml reads it so; the `yaml` package, which gives
    // positions, and the shown lines count only LF: make it one.
    if (source.text.includes('\r')) source.text = source.text.replace(/\r(?!\n)/g, '\n');
    return undefined;
  }
  const offset = utf16 ? 0 : nul !== -1 ? nul : bad;
  // Only the text up to the end of that line is kept: it is shown under the diagnostic.
  const lineEnd = bytes.indexOf(0x0a, offset);
  source.text = bytes.toString('utf8', bom, lineEnd === -1 ? Math.min(bytes.length, offset + 1000) : lineEnd);
  source.unreadable = true;
  const before = bytes.toString('utf8', bom, offset);
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  const at = { file: source.file, line, column };
  if (utf16) return problem('invalid-utf8', { kind: 'utf16' }, at);
  if (nul !== -1) return problem('binary-file', {}, at);
  return problem('invalid-utf8', { kind: 'byte', byte: bytes[offset]!, offset }, at);
}

/** Whether a CR that no LF follows is among `bytes` from `from`: the text has an LF in its place. */
function hasLoneCr(bytes: Buffer, from: number): boolean {
  for (let cr = bytes.indexOf(0x0d, from); cr !== -1; cr = bytes.indexOf(0x0d, cr + 1)) if (bytes[cr + 1] !== 0x0a) return true;
  return false;
}

/** The offset of the first byte that does not belong to a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Buffer, from: number): number {
  for (let i = from; i < bytes.length;) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    // Length and the range of the second byte (which excludes overlongs, surrogates, > U+10FFFF).
    const [length, low, high] =
      b >= 0xc2 && b <= 0xdf
        ? [2, 0x80, 0xbf]
        : b === 0xe0
          ? [3, 0xa0, 0xbf]
          : (b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef
            ? [3, 0x80, 0xbf]
            : b === 0xed
              ? [3, 0x80, 0x9f]
              : b === 0xf0
                ? [4, 0x90, 0xbf]
                : b >= 0xf1 && b <= 0xf3
                  ? [4, 0x80, 0xbf]
                  : b === 0xf4
                    ? [4, 0x80, 0x8f]
                    : [0, 0, 0];
    if (length === 0) return i;
    for (let k = 1; k < length; k++) {
      const c = bytes[i + k];
      const [min, max] = k === 1 ? [low, high] : [0x80, 0xbf];
      if (c === undefined || c < min || c > max) return i;
    }
    i += length;
  }
  return -1;
}

/**
 * The text's bytes in UTF-8: those read, while the text is not decoded yet (decodedWhenUsed).
 * What a CLI edit counts of the files it does not parse (build/edit.ts).
 */
export function textByteLength(source: ContentText): number {
  return undecoded.get(source)?.length ?? Buffer.byteLength(source.text);
}

const undecoded = new WeakMap<ContentText, Buffer>();

/** Keeps the text as its bytes, hashed now, until it is first used. */
function decodedWhenUsed(source: ContentText, bytes: Buffer): void {
  source.textFingerprint = sha1(bytes);
  undecoded.set(source, bytes);
  let text = '';
  Object.defineProperty(source, 'text', {
    enumerable: true,
    configurable: true,
    get: () => {
      const pending = undecoded.get(source);
      if (pending) {
        text = pending.toString('utf8');
        undecoded.delete(source);
      }
      return text;
    },
    set: (value: string) => {
      text = value;
      undecoded.delete(source);
    },
  });
}
