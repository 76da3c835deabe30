// The catalog of messages and hints: for each code, after Astro's error catalog, the words of
// its message and hint as functions of typed parameters, written once. The sites that report a
// problem give the parameters and the place (problem.ts); codes.ts has each code's title.
import type { DiagnosticCode, Severity } from './codes.js';
import { COLLECTION_MESSAGES } from './catalog-collections.js';
import { CONFIG_MESSAGES } from './catalog-config.js';
import { LOAD_MESSAGES } from './catalog-load.js';
import { PLAN_MESSAGES } from './catalog-plan.js';
import { PLAYLIST_MESSAGES } from './catalog-playlists.js';
import { SCHEMA_MESSAGES } from './catalog-schema.js';
import { SEARCH_MESSAGES } from './catalog-search.js';
import { TABLE_MESSAGES } from './catalog-tables.js';
import { VALIDATE_MESSAGES } from './catalog-validate.js';

/**
 * One code's words. Methods, so that an entry with its own parameter type is one of these; the
 * constructor (problem.ts) gives each only the parameters of its code.
 */
export interface CatalogEntry {
  /** The severity when the code always has it; absent when the site chooses. */
  readonly severity?: Severity;
  message(params: unknown): string;
  hint?(params: unknown): string | undefined;
}

export const CATALOG = {
  ...LOAD_MESSAGES,
  ...TABLE_MESSAGES,
  ...SCHEMA_MESSAGES,
  ...VALIDATE_MESSAGES,
  ...CONFIG_MESSAGES,
  ...SEARCH_MESSAGES,
  ...PLAN_MESSAGES,
  ...COLLECTION_MESSAGES,
  ...PLAYLIST_MESSAGES,
} satisfies {
  [C in DiagnosticCode]?: CatalogEntry;
};

/** The codes whose message and hint the catalog writes. */
export type CataloguedCode = keyof typeof CATALOG;
