// The files of a plan as the write stage takes them.
import type { ResourceName } from '../validate/schema.js';
import type { FileOrigin } from '../shared/content.js';
import type { GenrePages } from './genre-conflicts.js';

export interface OutputFile {
  /** Path below the output folder, forward slashes, decoded (as static hosts look files up). */
  path: string;
  resource: ResourceName | 'asset' | 'page' | 'host';
  /**
   * The text of a generated file, or a function that renders it: bodies are rendered as they are
   * written, so that memory holds the files in flight, not the whole addon.
   */
  body?: string | (() => string);
  /** The content file that an asset is a copy of. */
  copyFrom?: string;
  /** The item or title that produced the file, for conflict reports (located only when reported). */
  origin?: FileOrigin;
  /**
   * A fingerprint of everything the body is rendered from. When a rebuild finds the one it
   * recorded for this path last time, it keeps the file without rendering it again.
   */
  inputs?: string;
  /**
   * A search page: another one at a path that differs only in letter case holds the same text (a
   * query as written and in lower case), so a file system that ignores case may keep either.
   */
  caseVariant?: true;
  /** A page of one genre of a catalog: a conflict with another genre's page is one of their spellings. */
  genre?: GenrePages;
}
