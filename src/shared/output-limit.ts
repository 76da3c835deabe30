// Part of stages 2 and 3, validate and plan: how much output a build may write for its content.
// Content from a pull request or a scraper could otherwise fill the disk of the machine that
// builds it: validate checks what the catalogs would list before it lists anything, plan the
// whole output before it lays out a file.
import type { SourceFile } from '../load/index.js';

/**
 * How much a build may write, against the text of the content it is built from (addon.yaml and
 * the item files): `factor` times its bytes and one file per `bytesPerFile` of them, and never
 * less than the floors. Real addons write several times their content, in a file per item or
 * video and a page per hundred listings; genres multiply that: in a catalog with a genre filter,
 * an item of n genres is listed on n pages (of three files each), each listing repeating its n
 * genres and their links, so one item of thousands of genres asks for gigabytes. Copied local
 * files are left out of both sides: a copy is its file's size, and counting them would let a
 * large image raise the allowance of generated files.
 */
export const OUTPUT_LIMIT = {
  factor: 1000,
  floorBytes: 64 * 1024 * 1024,
  bytesPerFile: 16,
  floorFiles: 100_000,
  /**
   * Items listed by catalogs (each item once per catalog that lists it), counted before they are
   * listed: a catalog that lists every item of a type costs a line of addon.yaml. Twenty catalogs
   * of every item, each item a line of 50 bytes, make 0.4 per byte.
   */
  listingsPerByte: 2,
  floorListings: 1_000_000,
} as const;

/** What OUTPUT_LIMIT allows for `input` bytes of content text. */
export function outputLimit(input: number): { files: number; bytes: number; listings: number } {
  return {
    files: Math.max(OUTPUT_LIMIT.floorFiles, Math.floor(input / OUTPUT_LIMIT.bytesPerFile)),
    bytes: Math.max(OUTPUT_LIMIT.floorBytes, input * OUTPUT_LIMIT.factor),
    listings: Math.max(OUTPUT_LIMIT.floorListings, input * OUTPUT_LIMIT.listingsPerByte),
  };
}

/** The bytes of the content's text: addon.yaml and every file that holds an item (each once). */
export function contentBytes(sources: Iterable<SourceFile>): number {
  let bytes = 0;
  for (const source of new Set(sources)) bytes += source.textBytes ??= Buffer.byteLength(source.text);
  return bytes;
}

/** Sizes in prose: kept here for the stages that import it with the limits. */
export { byteSize } from './bytes.js';
