// The typed constructor of a diagnostic: a site names the code, its parameters and where the
// problem is; the catalog (catalog-*.ts) writes the message and the hint, in one place per code.
import { CATALOG, type CatalogEntry, type CataloguedCode } from './catalog.js';
import type { Diagnostic, RelatedLocation, Severity } from './codes.js';

/** The parameter of a function, or unknown for one that takes none (or for no function). */
type ParamOf<F> = F extends (params: infer P) => unknown ? P : unknown;

/** What a code's message and hint are written from: the same object is given to both. */
export type MessageParams<C extends CataloguedCode> = ParamOf<(typeof CATALOG)[C]['message']> & ParamOf<HintOf<(typeof CATALOG)[C]>>;
type HintOf<E> = E extends { hint: infer H } ? H : undefined;

/** Where a problem is: its file and position, its field path, the other places it involves. */
export interface Place {
  file?: string;
  line?: number;
  column?: number;
  path?: string;
  related?: RelatedLocation[];
}

/**
 * The severity: a code that is always one severity has it in the catalog, and its sites give
 * none; a code that can be either (credentials allowed or not, errors in a summary) takes it
 * from the site.
 */
type SeverityOf<C extends CataloguedCode> = (typeof CATALOG)[C] extends { severity: Severity } ? { severity?: never } : { severity: Severity };

/** `place` of a diagnostic of code C: with the severity when the catalog leaves it to the site. */
export type PlaceOf<C extends CataloguedCode> = Place & SeverityOf<C>;

/**
 * The message and hint of `code`, for a check that hands them on to where the diagnostic is
 * made (a refinement of the schema, as a zod issue).
 */
export function words<C extends CataloguedCode>(code: C, params: MessageParams<C>): { message: string; hint: string | undefined } {
  const entry: CatalogEntry = CATALOG[code];
  return { message: entry.message(params), hint: entry.hint?.(params) };
}

/** The diagnostic of `code` at `place`, its message and hint written by the catalog from `params`. */
export function problem<C extends CataloguedCode>(code: C, params: MessageParams<C>, place: PlaceOf<C>): Diagnostic {
  const entry: CatalogEntry = CATALOG[code];
  const severity = place.severity ?? entry.severity;
  if (severity === undefined) throw new Error(`no severity for ${code}`);
  const { message, hint } = words(code, params);
  const { file, line, column, path, related } = place;
  const diagnostic: Diagnostic = { code, severity, file, line, column, path, message, hint, related };
  // Absent, not undefined: the diagnostic has only the fields that say something.
  for (const key of ['file', 'line', 'column', 'path', 'hint', 'related'] as const) if (diagnostic[key] === undefined) delete diagnostic[key];
  return diagnostic;
}
