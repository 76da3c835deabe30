// Reading values of unknown shape (files this code wrote, read back) before they are trusted.

/** `value[name]` when `value` is an object, else undefined: no cast needed to look. */
export function fieldOf(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined;
}

/** A count: a safe integer, 0 or more. */
export function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && Number(value) >= 0;
}
