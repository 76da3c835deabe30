// Part of stage 2, validate: `${NAME}` in values, and the guard that keeps secrets out of the
// output. Everything addon-gen writes is public, so a value that would publish a secret is an
// error at the field that holds it, before anything is written.
import type { Locator } from './issues.js';
import { formatPath, problem, type Diagnostic, type DiagnosticList, type MessageParams, type Place } from '../diagnostics/index.js';

/** Names that look like they hold a secret, case-insensitively (`GITHUB_TOKEN`, `tmdb_api_key`). */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|AUTH/i;
/** Shorter values (`AUTH=1`) would match ordinary text everywhere; they are not looked for. */
export const MIN_SECRET_LENGTH = 8;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type Environment = Readonly<Record<string, string | undefined>>;

/** What addon.yaml says about variables: `secrets` to guard as well, `publish` to allow. */
export interface SecretPolicy {
  secrets: ReadonlySet<string>;
  publish: ReadonlySet<string>;
  /** Values of the guarded variables that are set, with their names. */
  values: ReadonlyMap<string, string>;
  /**
   * The same values as `readEscapes` leaves them (and, for one beyond ASCII, its UTF-8 bytes
   * read as percent-encoding leaves them), with their names: what `secretsIn` looks for in a
   * text once its escapes are read.
   */
  readForms: ReadonlyMap<string, string>;
}

export function secretPolicy(env: Environment, secrets: readonly string[] = [], publish: readonly string[] = []): SecretPolicy {
  const policy = { secrets: new Set(secrets), publish: new Set(publish), values: new Map<string, string>(), readForms: new Map<string, string>() };
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.length >= MIN_SECRET_LENGTH && isGuarded(policy, name)) policy.values.set(value, name);
  }
  for (const [value, name] of policy.values) {
    policy.readForms.set(readEscapes(value), name);
    // Percent-encoding spells bytes: `%C3%A9` reads as the two code units of the bytes of `é`.
    const bytes = Buffer.from(value, 'utf8').toString('latin1');
    if (bytes !== value) policy.readForms.set(readEscapes(bytes), name);
  }
  return policy;
}

function isGuarded(policy: Pick<SecretPolicy, 'secrets' | 'publish'>, name: string): boolean {
  return !policy.publish.has(name) && (policy.secrets.has(name) || SECRET_NAME.test(name));
}

/**
 * `text` with each `${NAME}` replaced by what `replace` returns for it and each `$${…}` by the
 * literal `${…}`, as the pattern `/\$(\$?)\{([^}]*)\}/g` would, in one pass: that pattern looks
 * for a `}` again from each `${`, which is quadratic in a value of many `${` without one.
 */
function replaceReferences(text: string, replace: (name: string, whole: string) => string): string {
  let open = text.indexOf('${');
  if (open === -1) return text;
  const parts: string[] = [];
  let copied = 0; // the text before it is in `parts`
  let done = 0; // where the last reference ended: the next one starts there or after
  let close = -1; // the first `}` after the last `${` looked at: a reference ends there
  for (; open !== -1; open = text.indexOf('${', done)) {
    if (close < open) {
      close = text.indexOf('}', open + 2);
      if (close === -1) break; // no `}` after this `${`, nor after any later one
    }
    const literal = open > done && text.charCodeAt(open - 1) === DOLLAR;
    const whole = text.slice(open, close + 1);
    const replacement = literal ? whole : replace(text.slice(open + 2, close), whole);
    // A reference left as it is (a variable not set) is copied with the text around it.
    if (literal || replacement !== whole) {
      parts.push(text.slice(copied, literal ? open - 1 : open), replacement);
      copied = close + 1;
    }
    done = close + 1;
  }
  if (copied === 0) return text;
  parts.push(text.slice(copied));
  return parts.join('');
}

/**
 * `text` with every `${NAME}` that is set replaced, as a whole: to look for guarded values in a
 * file without parsing it (with `secretsIn`, which reads YAML's escapes). It finds what
 * expandVariables finds in the file's values, and more (comments, keys).
 */
export function expandText(text: string, env: Environment): string {
  return replaceReferences(text, (name, whole) => env[name] ?? whole);
}

/**
 * Whether `text`, a file's, may hold a reference or a guarded value: files without either are not
 * walked. The parser reads YAML's escapes, so a value written with them (`"\x73k-…"`,
 * `"\x24{CDN}"`) is not in the file's text as it is: the text is looked at with its escapes read too.
 */
export function needsWalk(text: string, policy: SecretPolicy): boolean {
  if (text.includes('${')) return true;
  // Without a backslash and without guarded values, nothing needs reading.
  if (policy.values.size === 0 && !text.includes('\\')) return false;
  const read = mayBeEscaped(text) ? readEscapes(text) : text;
  return read.includes('${') || secretsIn(text, policy, read).length > 0;
}

/** A guarded value that a text holds: its variable, and whether it is written encoded. */
export interface SecretFound {
  name: string;
  /** Found only once escapes or percent-encoding were read (see `readEscapes`). */
  encoded: boolean;
}

/**
 * The guarded values that `text` holds, as it is or once its escapes are read (`readEscapes`),
 * each variable once: the one test wherever the guard looks (values and keys, whole files, the
 * reuse of a last build). `read` is `readEscapes(text)`, when the caller has it.
 */
export function secretsIn(text: string, policy: SecretPolicy, read?: string): SecretFound[] {
  const found = new Map<string, boolean>();
  for (const [value, name] of policy.values) if (text.includes(value)) found.set(name, false);
  if (found.size < policy.values.size && mayBeEscaped(text)) {
    read ??= readEscapes(text);
    for (const [form, name] of policy.readForms) if (!found.has(name) && read.includes(form)) found.set(name, true);
  }
  return [...found].map(([name, encoded]) => ({ name, encoded }));
}

const DOLLAR = 0x24;
const PERCENT = 0x25;
const PLUS = 0x2b;
const SPACE = 0x20;
const BACKSLASH = 0x5c;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const TAB = 0x09;
/** `\U` and eight digits: the longest escape read. */
const LONGEST_ESCAPE = 10;

/** Whether `readEscapes` could change `text`: a `%`, a `+` or a backslash. */
function mayBeEscaped(text: string): boolean {
  return /[%+\\]/.test(text);
}

/** By code unit below 128: what YAML's escape of one letter after a backslash stands for (`\n`, `\"`…), or -1. */
const ESCAPED = new Int32Array(128).fill(-1);
for (const [letter, code] of Object.entries({
  '0': 0x00,
  a: 0x07,
  b: 0x08,
  t: 0x09,
  '\t': 0x09,
  n: 0x0a,
  v: 0x0b,
  f: 0x0c,
  r: 0x0d,
  e: 0x1b,
  ' ': 0x20,
  '"': 0x22,
  '/': 0x2f,
  '\\': 0x5c,
  N: 0x85,
  _: 0xa0,
  L: 0x2028,
  P: 0x2029,
})) {
  ESCAPED[letter.charCodeAt(0)] = code;
}

/** By code unit below 128: the value of a hexadecimal digit, or -1. */
const HEX = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit++) {
  HEX[digit.toString(16).charCodeAt(0)] = digit;
  HEX[digit.toString(16).toUpperCase().charCodeAt(0)] = digit;
}

/**
 * `text` as the ways secrets are commonly written leave it once read: YAML's backslash escapes
 * (`\x73`, `\u0073`, `\U00000073`, `\n`…, and a line break escaped in double quotes), which the
 * parser reads but a look at a file's text does not; percent-encoding (`%73`) as often as it was
 * applied (`%2573`), which a URL pasted from a browser or a signed URL carries; and `+` read as a
 * space, as in a form's query. Percent-encoded bytes become one code unit each. More is read than
 * any one reader would (an escaped backslash starts an escape again): this finds secrets, it
 * does not render text. One pass: each code unit is pushed once, and reading an escape pops it.
 */
export function readEscapes(text: string): string {
  const length = text.length;
  const out = new Uint16Array(length);
  let n = 0;
  let changed = false;
  // Where in `out` the last `%` or backslash is: an escape ends at most 9 code units after it.
  let opener = -LONGEST_ESCAPE;
  for (let i = 0; i < length; i++) {
    let code = text.charCodeAt(i);
    if (code === BACKSLASH) {
      const next = text.charCodeAt(i + 1);
      if (next === LINE_FEED || next === CARRIAGE_RETURN) {
        // An escaped line break: it and the next line's indentation are not part of the value.
        i += next === CARRIAGE_RETURN && text.charCodeAt(i + 2) === LINE_FEED ? 2 : 1;
        while (text.charCodeAt(i + 1) === SPACE || text.charCodeAt(i + 1) === TAB) i++;
        changed = true;
        continue;
      }
      opener = n;
    } else if (code === PERCENT) {
      opener = n;
    } else if (code === PLUS) {
      code = SPACE;
      changed = true;
    }
    out[n++] = code;
    if (n - opener <= LONGEST_ESCAPE && n >= 2) {
      const before = n;
      n = readEnd(out, n);
      if (n !== before) {
        changed = true;
        // What is left may hold an opener of an escape not yet ended (`%%34` read to `%4`).
        opener = -LONGEST_ESCAPE;
        for (let j = n - 1; j >= 0 && j >= n - LONGEST_ESCAPE; j--) {
          if (out[j] === PERCENT || out[j] === BACKSLASH) {
            opener = j;
            break;
          }
        }
      }
    }
  }
  return changed ? Buffer.from(out.buffer, out.byteOffset, n * 2).toString('utf16le') : text;
}

/**
 * Reads the escape that ends at `out[n - 1]`, if one does, and again the one that the code unit
 * it leaves ends (`%25` then `41`); returns the new length.
 */
function readEnd(out: Uint16Array, n: number): number {
  for (;;) {
    const last = out[n - 1]!;
    if (n >= 2 && out[n - 2] === BACKSLASH && last < 128 && ESCAPED[last]! >= 0) {
      out[n - 2] = ESCAPED[last]!;
      n -= 1;
      continue;
    }
    let value = -1;
    let length = 0;
    if (n >= 3 && out[n - 3] === PERCENT) {
      value = hexNumber(out, n - 2, 2);
      length = 3;
    }
    if (value < 0 && n >= 4 && out[n - 4] === BACKSLASH && out[n - 3] === 0x78 /* x */) {
      value = hexNumber(out, n - 2, 2);
      length = 4;
    }
    if (value < 0 && n >= 6 && out[n - 6] === BACKSLASH && out[n - 5] === 0x75 /* u */) {
      value = hexNumber(out, n - 4, 4);
      length = 6;
    }
    if (value < 0 && n >= 10 && out[n - 10] === BACKSLASH && out[n - 9] === 0x55 /* U */) {
      value = hexNumber(out, n - 8, 8);
      length = 10;
    }
    if (value < 0 || value > 0x10ffff) return n;
    n -= length;
    if (value > 0xffff) {
      out[n++] = 0xd800 + ((value - 0x10000) >> 10);
      out[n++] = 0xdc00 + ((value - 0x10000) & 0x3ff);
    } else {
      out[n++] = value === PLUS ? SPACE : value;
    }
  }
}

/** The number that `digits` hexadecimal digits at `start` of `codes` spell, or -1. */
function hexNumber(codes: Uint16Array, start: number, digits: number): number {
  let value = 0;
  for (let i = start; i < start + digits; i++) {
    const code = codes[i]!;
    const digit = code < 128 ? HEX[code]! : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * Replaces `${NAME}` in every string below `value` (in place) and reports, at the field: a
 * variable that is not set, a reference to a guarded variable, and a guarded value that a
 * string or a key holds whichever way it got there, written as it is or encoded (`secretsIn`).
 * Keys are published as written: they are looked at, not expanded. `skip` names top-level keys
 * left as they are.
 * Returns the paths (as diagnostics show them) of the values it reported: other checks of those
 * values would only repeat the problem. `used` collects the variables it replaced, with their values.
 */
export function expandVariables(
  value: unknown,
  env: Environment,
  policy: SecretPolicy,
  at: Locator,
  diagnostics: DiagnosticList,
  skip: readonly string[] = [],
  used?: Map<string, string>,
): Set<string> {
  const failed = new Set<string>();
  /** Reports at the value at `path`, or with `key` at that key of the mapping at `path`. */
  const reporter = (path: (string | number)[], key?: string) => {
    // Made once per value: a value may hold millions of references that fail.
    // A key's own path would show the key, which may be the secret: the mapping's path is shown.
    // The key's path is still recorded, so that the schema does not name it an unknown field.
    const shown = formatPath(path);
    const recorded = key === undefined ? shown : formatPath([...path, key]);
    return (report: Report) => {
      failed.add(recorded);
      diagnostics.add(at.file, 'error', () => report({ ...at(path, key), path: shown }));
    };
  };
  /** Reports each guarded value that `text` holds: a key is published as much as a value. */
  const guard = (text: string, fail: ReturnType<typeof reporter>, what: string) => {
    for (const { name, encoded } of secretsIn(text, policy)) fail(secret({ kind: 'value', name, what, encoded }));
  };

  const expand = (text: string, path: (string | number)[]): string => {
    let reported: ReturnType<typeof reporter> | undefined;
    const fail: ReturnType<typeof reporter> = (...args) => (reported ??= reporter(path))(...args);
    const expanded = replaceReferences(text, (name, whole) => {
      if (!VARIABLE_NAME.test(name)) {
        // Not the name itself when it holds a guarded value (`${<the token>}`), nor all of a long one.
        const shown = secretsIn(name, policy).length > 0 ? '…' : name.length > 40 ? `${name.slice(0, 40)}…` : name;
        fail((place) => problem('invalid-value', { kind: 'variable-name', shown }, place));
        return whole;
      }
      const variable = env[name];
      if (variable === undefined) {
        fail((place) => problem('unset-variable', { name }, place));
        return whole;
      }
      if (isGuarded(policy, name)) {
        fail(secret({ kind: 'reference', name }));
        return whole;
      }
      used?.set(name, variable);
      return variable;
    });
    guard(expanded, fail, 'this value');
    return expanded;
  };

  const walk = (node: unknown, path: (string | number)[]): unknown => {
    if (typeof node === 'string') return expand(node, path);
    if (Array.isArray(node)) {
      node.forEach((element, index) => (node[index] = walk(element, [...path, index])));
    } else if (isMapping(node)) {
      const object = node;
      for (const key of Object.keys(object)) {
        if (path.length === 0 && skip.includes(key)) continue;
        guard(key, (...args) => reporter(path, key)(...args), 'a key of this mapping');
        object[key] = walk(object[key], [...path, key]);
      }
    }
    return node;
  };
  walk(value, []);
  return failed;
}

/** Makes a problem at a place: the reporters of expandVariables find the place, and make it once per value. */
type Report = (place: Place) => Diagnostic;

/** A secret-in-output of a value or a reference, at the place its reporter gives. */
function secret(params: MessageParams<'secret-in-output'>): Report {
  return (place) => problem('secret-in-output', params, place);
}

/** `secrets` and `publish` from unchecked settings (the schema reports wrong shapes). */
export function policyLists(settings: unknown): { secrets: string[]; publish: string[] } {
  const list = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  const object = isMapping(settings) ? settings : {};
  return { secrets: list(object.secrets), publish: list(object.publish) };
}

/** A YAML mapping: an object that is not a list (lists are walked before mappings are). */
function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
