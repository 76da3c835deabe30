// Checks of the JSON that addon-gen reads back from itself: its lock files, its bookkeeping and its
// own package.json. zod checks what publishers write and what the protocol says; these few shapes
// are plain predicates, so that a command that reads no content (a rebuild that finds its last
// output standing, --version) never loads zod's modules, most of such a rebuild's time (figures:
// bench/README.md, 'Content files trusted by their stamps'). The bookkeeping's larger files
// (write/state.ts, build/kept-store.ts) are checked the same way.

/** A JSON object: its fields are still to be checked. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A whole number of zero or more. */
export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
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
