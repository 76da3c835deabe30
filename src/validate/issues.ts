// Turns zod issues into diagnostics: plain-language messages, a code, the YAML location, a hint.
import { z } from 'zod';
import { closest, formatPath, problem, type Diagnostic, type Location, type Place } from '../diagnostics/index.js';
import { IssueParams, RENAMED_FIELDS } from './schema.js';
import { CSV_NAME } from '../load/file-names.js';

type Issue = z.core.$ZodIssue;
type Path = (string | number)[];

/**
 * Finds the location of a value (or, with `key`, of that key) at a path inside one parsed value,
 * an item or the settings, and names the file it is in.
 */
export interface Locator {
  (path: readonly (string | number)[], key?: string): Location;
  readonly file: string;
}

/** Whether the locator's file is a table, whose fields are columns: hints speak of cells. Asked only for a problem shown. */
export const inTable = (locator: Locator): boolean => CSV_NAME.test(locator.file);

/**
 * A diagnostic that an issue makes, with its field path (as diagnostics show it) known at once
 * and the rest built on demand: locating it may parse its item again, and a file past its limit
 * of problems only counts them (see DiagnosticList).
 */
export interface PendingDiagnostic {
  path: string | undefined;
  build: () => Diagnostic;
}

export function issuesToDiagnostics(issues: readonly Issue[], schema: z.ZodType, locator: Locator): PendingDiagnostic[] {
  const said = new Map<string, { first: Path; places?: Set<string> }>();
  return issues.flatMap((raw) =>
    deepestBranch(raw).flatMap((issue) => (repeated(issue, said, locator) ? [] : toDiagnostics(issue, schema, locator))),
  );
}

/**
 * Whether the issue says what an earlier one said, at the same place: one value can fill two
 * fields (a playlist's tvg-logo is its channel's poster and logo), and its problem is one. Only
 * then is either located, as locating may parse the item again.
 */
function repeated(issue: Issue, said: Map<string, { first: Path; places?: Set<string> }>, locator: Locator): boolean {
  if (issue.code !== 'custom') return false;
  const path = issue.path.filter((k): k is string | number => typeof k !== 'symbol');
  const key = `${String(issue.params?.code)}\0${issue.message}`;
  const earlier = said.get(key);
  if (earlier === undefined) {
    said.set(key, { first: path });
    return false;
  }
  const place = (at: Location) => `${at.file}:${at.line}:${at.column}`;
  earlier.places ??= new Set([place(locator(earlier.first))]);
  const here = place(locator(path));
  if (earlier.places.has(here)) return true;
  earlier.places.add(here);
  return false;
}

function toDiagnostics(issue: Issue, schema: z.ZodType, locator: Locator): PendingDiagnostic[] {
  const path = issue.path.filter((k): k is string | number => typeof k !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ path: formatPath([...path, key]), build: () => unknownField(key, path, schema, locator, issue.input) }));
  }
  const pathText = formatPath(path) || undefined;
  return [{ path: pathText, build: () => described(issue, path, { ...locator(path), path: pathText }, inTable(locator)) }];
}

function unknownField(key: string, path: Path, schema: z.ZodType, locator: Locator, input: unknown): Diagnostic {
  const known = keysAt(schema, path);
  const place: Place = { ...locator(path, key), path: formatPath([...path, key]) };
  const suggestion = closest(key, known);
  const emptyParent = suggestion ? undefined : emptyParentOf(key, path, schema, input);
  // The empty field the key belongs under, as a place of its own.
  if (emptyParent !== undefined) place.related = [{ ...locator(path, emptyParent), message: `${emptyParent}, which is empty` }];
  // Own keys only: `constructor` or `toString` in the YAML must not find Object's.
  const renamed = Object.hasOwn(RENAMED_FIELDS, key) ? RENAMED_FIELDS[key] : undefined;
  return problem('unknown-field', { key, suggestion, emptyParent, renamed, known }, place);
}

/**
 * A field whose value is empty (a key with nothing after it) and whose fields, or whose entries'
 * fields, include `key`: the field that `key` was meant to be under, had it been indented. Only
 * the mapping's own keys with an empty value are looked at.
 */
function emptyParentOf(key: string, path: Path, schema: z.ZodType, input: unknown): string | undefined {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return undefined;
  for (const [field, value] of Object.entries(input)) {
    if (value !== null || field === key) continue;
    if (keysAt(schema, [...path, field]).includes(key) || keysAt(schema, [...path, field, 0]).includes(key)) return field;
  }
  return undefined;
}

/** The diagnostic of an issue other than unknown keys, at `place`. */
function described(issue: Issue, path: Path, place: Place, table?: boolean): Diagnostic {
  const field = path[path.length - 1];
  if (issue.code === 'invalid_type' && issue.input === undefined) {
    return problem('missing-field', { kind: 'field', field: String(field), video: false, table }, place);
  }
  if (issue.code === 'invalid_type') {
    const { expected, input } = issue;
    // `released: 1922`: YAML reads a year as a number, and a year is not a date.
    if (field === 'released' && typeof input === 'number') {
      return problem('invalid-value', { kind: 'year-as-date', found: describeValue(input), input }, place);
    }
    // `season: "1"`: in quotes a number is text.
    if (expected === 'number' && typeof input === 'string' && /^-?\d+(\.\d+)?$/.test(input.trim())) {
      return problem('invalid-value', { kind: 'quoted-number', message: describeIssue(issue), input }, place);
    }
    // `name: 1917`: YAML reads digits without quotes as a number.
    if (expected === 'string' && typeof input === 'number') {
      const key = typeof field === 'string' ? field : undefined;
      return problem('invalid-value', { kind: 'unquoted-number', message: describeIssue(issue), field: key, input }, place);
    }
    // `behaviorHints:` with its fields under-indented, or nothing, after it.
    if (input === null && (expected === 'object' || expected === 'record' || expected === 'array')) {
      return problem('invalid-value', { kind: 'empty', message: describeIssue(issue), field: String(field), entries: expected === 'array' }, place);
    }
  }
  if (issue.code === 'custom') {
    const parsed = IssueParams.safeParse(issue.params ?? {});
    const params: IssueParams = parsed.success ? parsed.data : {};
    // The check wrote its message and hint with the catalog's words (or its own, for invalid-value).
    const hint = params.hint === undefined ? {} : { hint: params.hint };
    return { code: params.code ?? 'invalid-value', severity: 'error', ...place, message: issue.message, ...hint };
  }
  return problem('invalid-value', { kind: 'schema', message: describeIssue(issue) }, place);
}

/** A union failure says most when reported through the branch that got furthest into the value. */
function deepestBranch(issue: Issue): Issue[] {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue];
  const depth = (branch: Issue[]) => Math.max(...branch.map((i) => i.path.length));
  const branches = issue.errors.filter((b) => b.length > 0);
  // Each branch's only issue, where that is a wrong type of the whole value.
  const typeErrors = branches.flatMap((b) => {
    const only = b.length === 1 ? b[0] : undefined;
    return only?.code === 'invalid_type' && only.path.length === 0 ? [only] : [];
  });
  if (typeErrors.length === branches.length) {
    const expected = [...new Set(typeErrors.map((i) => expectedName(i.expected)))];
    return [
      {
        code: 'custom',
        path: issue.path,
        input: issue.input,
        message: `expected ${expected.join(' or ')}, found ${describeValue(issue.input)}`,
      },
    ];
  }
  const best = branches.reduce((a, b) => (depth(b) > depth(a) ? b : a));
  const inner = best.map((i): Issue => ({ ...i, path: [...issue.path, ...i.path] }));
  // Every issue of the most promising branch, as a value that is not a union reports them: a
  // list with three wrong entries has three problems, and a run reports all of them together.
  return inner.flatMap(deepestBranch);
}

function describeIssue(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${expectedName(issue.expected)}, found ${describeValue(issue.input)}`;
    case 'invalid_value':
      return `expected ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}, found ${describeValue(issue.input)}`;
    case 'too_small':
      return issue.origin === 'array'
        ? `expected at least ${issue.minimum} ${Number(issue.minimum) === 1 ? 'entry' : 'entries'}`
        : issue.origin === 'string'
          ? 'expected a non-empty text'
          : `expected a number ${issue.inclusive ? '>=' : '>'} ${issue.minimum}, found ${describeValue(issue.input)}`;
    case 'too_big':
      return `expected a number ${issue.inclusive ? '<=' : '<'} ${issue.maximum}, found ${describeValue(issue.input)}`;
    case 'invalid_format':
      return issue.message.startsWith('expected') ? `${issue.message}, found ${describeValue(issue.input)}` : issue.message;
    default:
      return issue.message;
  }
}

function expectedName(expected: string): string {
  const names: Record<string, string> = {
    string: 'text',
    number: 'a number',
    int: 'a whole number',
    boolean: 'true or false',
    array: 'a list',
    object: 'a mapping',
    tuple: 'a list',
    record: 'a mapping',
  };
  return names[expected] ?? expected;
}

export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null (an empty value)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  // YAML's own spelling of the values JavaScript prints as Infinity and NaN.
  if (typeof value === 'number' && !Number.isFinite(value))
    return Number.isNaN(value) ? '.nan (not a number)' : `${value < 0 ? '-' : ''}.inf (infinity)`;
  return String(value);
}

/**
 * The field names the schema allows for the object at `path`, for "did you mean" hints.
 * Walks zod's own definitions: objects, lists, tuples, unions and the wrappers around them.
 */
function keysAt(schema: z.core.$ZodType, path: Path): string[] {
  let current = unwrap(schema);
  for (const key of path) {
    current = current.flatMap((s) => {
      if (s instanceof z.core.$ZodObject) {
        const field = typeof key === 'string' && Object.hasOwn(s._zod.def.shape, key) ? s._zod.def.shape[key] : undefined;
        return field ? unwrap(field) : [];
      }
      if (s instanceof z.core.$ZodArray && typeof key === 'number') return unwrap(s._zod.def.element);
      if (s instanceof z.core.$ZodTuple && typeof key === 'number') {
        const item = s._zod.def.items[key];
        return item ? unwrap(item) : [];
      }
      if (s instanceof z.core.$ZodRecord) return unwrap(s._zod.def.valueType);
      return [];
    });
  }
  const keys = current.flatMap((s) => (s instanceof z.core.$ZodObject ? Object.keys(s._zod.def.shape) : []));
  return [...new Set(keys)];
}

/** The schemas a value is checked by inside the wrappers around them, each branch of a union. */
function unwrap(schema: z.core.$ZodType): z.core.$ZodType[] {
  if (
    schema instanceof z.core.$ZodOptional ||
    schema instanceof z.core.$ZodNullable ||
    schema instanceof z.core.$ZodDefault ||
    schema instanceof z.core.$ZodPrefault ||
    schema instanceof z.core.$ZodReadonly ||
    schema instanceof z.core.$ZodCatch
  ) {
    return unwrap(schema._zod.def.innerType);
  }
  if (schema instanceof z.core.$ZodPipe) return unwrap(schema._zod.def.in);
  if (schema instanceof z.core.$ZodUnion) return schema._zod.def.options.flatMap(unwrap);
  return [schema];
}
