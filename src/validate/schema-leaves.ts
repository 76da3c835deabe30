// The leaves of the schemas, shared by both sides: URLs, file names, dates, versions. Protocol and
// content schemas are made of the same objects (schema-factory.ts) around different leaves.
import { z } from 'zod';
import { words, type MessageParams } from '../diagnostics/index.js';
import { fileNameProblem } from '../shared/paths.js';

/** Issue parameters that name the diagnostic code a failed check should report. */
export const IssueParams = z.object({
  code: z
    .enum(['bad-file-name', 'stream-source', 'missing-asset', 'asset-outside-content', 'base-url-required', 'invalid-addon-manifest'])
    .optional(),
  hint: z.string().optional(),
});
export type IssueParams = z.infer<typeof IssueParams>;

/**
 * The message and the issue parameters of a failed check that reports a code of its own: the
 * catalog writes its words, and issues.ts makes the diagnostic of them at the value.
 */
export function codedIssue<C extends NonNullable<IssueParams['code']>>(code: C, params: MessageParams<C>): { message: string; params: IssueParams } {
  const { message, hint } = words(code, params);
  return { message, params: hint === undefined ? { code } : { code, hint } };
}

/** An absolute URL (the client rejects relative ones): a scheme of two or more letters, then a parseable rest. */
export function isAbsoluteUrl(value: string): boolean {
  return /^[a-z][a-z0-9+.-]+:/i.test(value) && URL.canParse(value);
}

const relativeUrl = words('invalid-value', { kind: 'relative-url' });
export const absoluteUrl = z
  .string()
  .refine(isAbsoluteUrl, { message: relativeUrl.message, params: { hint: relativeUrl.hint } satisfies IssueParams });

const nameSchema = (whole: boolean) =>
  z.string().superRefine((value, ctx) => {
    const problem = fileNameProblem(value, whole);
    if (problem) {
      ctx.addIssue({ code: 'custom', ...codedIssue('bad-file-name', { value, problem }) });
    }
  });

/** A string that becomes a file or folder name in the output (ids, types). */
export const fileName = nameSchema(true);
/** A genre: the end of a file name (`genre=Drama.json`). */
export const genreName = nameSchema(false);

export const nonNegativeInt = z.number().int().nonnegative();
/** An environment variable's name, as `${NAME}` in values refers to it. */
export const variableName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'expected a variable name (letters, digits and _)' });
export const threeLetters = (what: string) => z.string().regex(/^[a-z]{3}$/, { message: `expected a three-letter lowercase ${what} code` });

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?\s*(Z|z|[+-]\d{2}:?\d{2})?)?$/;

/** A calendar date or date-time to RFC 3339 in UTC, or undefined when no such moment exists (2023-02-30). */
export function toRfc3339(value: string): string | undefined {
  const m = DATE_TIME.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi = '0', s = '0', frac = '', zone = 'Z'] = m;
  const year = Number(y),
    month = Number(mo),
    day = Number(d),
    hour = Number(h ?? 0),
    minute = Number(mi),
    second = Number(s);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  if (day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return undefined;
  // Most dates in content are plain days: as the Date below would write them, without one (a
  // build has one per item and video, and a Date each is measurable: bench/README.md, 'Plain days
  // without a Date'). Joined rather than concatenated: kept for every item and video, a
  // concatenation is a tree of its pieces, larger than the one flat string a join makes.
  if (h === undefined) return [y, '-', mo, '-', d, 'T00:00:00.000Z'].join('');
  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
  }
  const millis = frac ? Math.floor(Number(`0${frac}`) * 1000) : 0;
  // setUTCFullYear, unlike Date.UTC, does not map years 0..99 onto 1900..1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMinutes, second, millis);
  return date.toISOString();
}

export const contentDate = z.string().transform((value, ctx) => {
  const iso = toRfc3339(value);
  if (iso) return iso;
  const { message, hint } = words('invalid-value', { kind: 'not-a-date', value });
  ctx.issues.push({ code: 'custom', input: value, message, params: { hint } satisfies IssueParams });
  return z.NEVER;
});

export const protocolDate = z.string().refine((value) => toRfc3339(value) === value, {
  message: 'expected an RFC 3339 date-time in UTC with milliseconds (1968-10-01T00:00:00.000Z)',
});

/** `releaseInfo` and `runtime` are strings on the wire; YAML turns `1968` into a number. */
export const textOrNumber = z.union([z.string(), z.number()]).transform(String);

// Dot-separated parts are matched as "no `..` anywhere, no dot at either end", never as a
// repeated group (`(\.[a-z]+)+`): V8 keeps a backtracking entry for each repetition of a group,
// and a value of a few MiB of `a.` overflowed its stack, which ended the build with a RangeError.
// Each pattern below matches the same strings as the grouped one it replaces.
// The lookahead: no numeric pre-release identifier with a leading zero (`1.0.0-01`), which semver
// forbids and the client's parser refuses.
const SEMVER =
  /^(?!.*\.\.)(?!\d+\.\d+\.\d+-(?:[^+]*\.)?0\d+(?:[.+]|$))(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-](?:[0-9A-Za-z.-]*[0-9A-Za-z-])?)?(?:\+[0-9A-Za-z-](?:[0-9A-Za-z.-]*[0-9A-Za-z-])?)?$/;
export const semver = z.string().regex(SEMVER, { message: 'expected a semantic version such as 1.0.0' });
// No regex flags here or in any content schema: JSON Schema patterns have none (see json-schema.ts).
export const reverseDomain = z
  .string()
  .regex(/^(?!.*\.\.)[a-zA-Z0-9-]+\.[a-zA-Z0-9.-]*[a-zA-Z0-9-]$/, { message: 'expected a reverse-domain id such as org.example.films' });
/**
 * zod's email pattern, `^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$`,
 * without its repeated groups (see SEMVER): no `..`, no label that starts with `-`.
 */
export const EMAIL = /^(?!.*\.\.)(?![^@]*@.*\.-)(?:[A-Za-z0-9_'+\-][A-Za-z0-9_'+\-.]*)?[A-Za-z0-9_+-]@[A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z]{2,}$/;
