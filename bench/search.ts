// Search files (issue 30): builds the benchmark content without search and with `search: true`
// on its movies and series catalogs, for each `searchQueries` (all, words, names), and measures
// the files and bytes each adds, and the build time. A step of `npm run bench` (at the small size
// unless `--search large`), or alone after `npx tsc -p tsconfig.build.json`:
// `npx tsx bench/search.ts [small|large]`. Figures in bench/README.md.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateContent, SIZES } from './generate.js';
import { runStandalone, type RunBuild } from './configurations.js';

interface Size {
  files: number;
  bytes: number;
}

export interface SearchRow extends Size {
  build: string;
  seconds: number;
  /** Files, bytes and seconds against the build without search. */
  filesRatio: number;
  bytesRatio: number;
  secondsRatio: number;
  /** The search pages alone: files whose name has `search=`. */
  searchFiles: number;
  searchBytes: number;
}

export interface SearchReport {
  size: string;
  items: number;
  rows: SearchRow[];
}

/** Files and bytes below `dir`, and those of search pages. */
async function measure(dir: string): Promise<Size & { searchFiles: number; searchBytes: number }> {
  const size = { files: 0, bytes: 0, searchFiles: 0, searchBytes: 0 };
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const bytes = (await stat(path.join(entry.parentPath, entry.name))).size;
    size.files++;
    size.bytes += bytes;
    if (entry.name.includes('search=')) {
      size.searchFiles++;
      size.searchBytes += bytes;
    }
  }
  return size;
}

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

export async function measureSearch(work: string, size: keyof typeof SIZES, run: RunBuild): Promise<SearchReport> {
  const rows: SearchRow[] = [];
  let items = 0;
  let plain: (Size & { seconds: number }) | undefined;
  for (const search of [undefined, 'all', 'words', 'names'] as const) {
    const name = search === undefined ? 'without search' : `searchQueries: ${search}`;
    const content = path.join(work, `search-${search ?? 'none'}-content`);
    const out = path.join(work, `search-${search ?? 'none'}-out`);
    items = (await generateContent(content, { ...SIZES[size], ...(search && { search }) })).items;
    const { seconds } = await run(content, out, name);
    const measured = await measure(out);
    plain ??= { ...measured, seconds };
    rows.push({
      build: name,
      ...measured,
      seconds,
      filesRatio: ratio(measured.files, plain.files),
      bytesRatio: ratio(measured.bytes, plain.bytes),
      secondsRatio: ratio(seconds, plain.seconds),
    });
  }
  return { size, items, rows };
}

export function printSearch(report: SearchReport): void {
  const MiB = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  console.log(`\nsearch files (issue 30), ${report.size} content, ${report.items} items, search on the movies and series catalogs:`);
  console.log('build                     files      MiB   search files  search MiB   files/plain   bytes/plain   time/plain');
  for (const r of report.rows) {
    console.log(
      `${r.build.padEnd(22)} ${String(r.files).padStart(8)} ${MiB(r.bytes).padStart(8)}   ${String(r.searchFiles).padStart(12)}  ${MiB(r.searchBytes).padStart(10)}   ${String(r.filesRatio).padStart(11)}   ${String(r.bytesRatio).padStart(11)}   ${String(r.secondsRatio).padStart(10)}`,
    );
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await runStandalone('search', measureSearch, printSearch);
