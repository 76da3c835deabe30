// Reading values of unknown shape (files this code wrote, read back) before they are trusted:
// the state file, the kept file, the record of edits, the lock, the record and the stamps slot,
// and addon-gen's own package.json. zod checks what publishers write and what the protocol says;
// these are plain predicates, so that a command that reads no content (a rebuild that finds its
// last output standing, --version) never loads zod's modules, most of such a rebuild's time
// (figures: bench/README.md, 'Content files trusted by their stamps').

/** `value[name]` when `value` is an object, else undefined: no cast needed to look. */
export function fieldOf(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined;
}

/** A count: a safe integer, 0 or more. */
export function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && Number(value) >= 0;
}

/** A JSON object: its fields are still to be checked. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An array whose every element `is` one of T. */
export function isListOf<T>(value: unknown, is: (element: unknown) => element is T): value is T[] {
  return Array.isArray(value) && value.every((element) => is(element));
}

/** Two strings: the `[name, value]` pairs the bookkeeping lists (folders and their stamps, say). */
export function isStringPair(value: unknown): value is [string, string] {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string';
}

export function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/** The value of JSON text in UTF-8 (a part of the kept file); throws when the bytes are not such text. */
export function jsonOf(bytes: Uint8Array): unknown {
  return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
}
