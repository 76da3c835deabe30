// Output size per configuration (issue 29): builds the benchmark content and the same content made
// configurable (generate.ts, `configurable`: two options, four configurations), and measures the
// files and bytes of each build, of each tree of the configurable one (the root and each
// configuration's folder), and how many files are byte-identical at the same path in every
// configuration's tree: what a host with rewrite rules could serve from one copy. A step of
// `npm run bench` (at the small size unless `--configurations large`), or alone after
// `npx tsc -p tsconfig.build.json`: `npx tsx bench/configurations.ts [small|large]`. Figures in
// bench/README.md.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateContent, SIZES } from './generate.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'addon-gen.js');

/** The configuration whose values are the defaults of generate.ts's `config`: the root's tree. */
export const DEFAULT_SEGMENT = 'quality=hd,extras=false';

/** Builds `content` into `out` (a fresh folder); returns its wall seconds and peak RSS when known. */
export type RunBuild = (content: string, out: string, step: string) => Promise<{ seconds: number; maxRssMiB?: number }>;

interface Size {
  files: number;
  bytes: number;
}

interface Tree extends Size {
  tree: string;
  /** Against the whole unconfigured build. */
  filesRatio: number;
  bytesRatio: number;
}

/** A folder of the trees (a resource, or a resource and type), compared across the trees. */
interface Folder {
  folder: string;
  /** Files in each configuration's tree: fewer where `when` keeps some out. */
  filesPerTree: number[];
  /** Paths with the same bytes in every configuration's tree. */
  identical: number;
  /** Whether the folder is the same in every configuration's tree: the same paths with the same bytes. */
  wholeFolderIdentical: boolean;
  /**
   * The fewest copies of the folder that serve every tree (the root's too), each tree from a copy
   * that has the same bytes at every path the tree has (the copy may have more paths: the files
   * of items a tree leaves out). Trees in order, each in the first copy it agrees with.
   */
  copies: number;
  /** Files and bytes of the folder in all the trees (the root's too), and in the copies alone. */
  written: Size;
  copiesSize: Size;
}

export interface ConfigurationsReport {
  size: string;
  configurations: number;
  unconfigured: Size & { seconds: number; maxRssMiB?: number };
  configured: Size & { seconds: number; maxRssMiB?: number; filesRatio: number; bytesRatio: number; secondsRatio: number };
  trees: Tree[];
  /** Paths with the same bytes in every configuration's tree: one copy's files and bytes. */
  identicalInAll: Size & { filesShareOfATree: number; bytesShareOfATree: number };
  /** Files and bytes not written if every identical copy in the configurations' trees were written once. */
  savedOnePerDistinctFile: Size & { filesShareOfBuild: number; bytesShareOfBuild: number };
  /** Files and bytes not written if, in addition, the root were served from the defaults' tree. */
  rootSameAsDefaults: Size & { rootOnly: Size };
  folders: Folder[];
  /**
   * Files and bytes not written if each folder's trees were served from its copies (a rewrite per
   * folder and tree that does not hold a copy), and how many folders of the trees that takes.
   */
  savedByFolderRewrites: Size & { folders: number; filesShareOfBuild: number; bytesShareOfBuild: number };
}

type Files = Map<string, { bytes: number; hash: string }>;

/** Every file below `dir`, by its path relative to `dir` (with `/`), with its size and a hash of its bytes. */
async function filesOf(dir: string): Promise<Files> {
  const files: Files = new Map();
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  entries.sort((a, b) => (a.parentPath + '/' + a.name < b.parentPath + '/' + b.name ? -1 : 1));
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const body = await readFile(file);
    files.set(path.relative(dir, file).split(path.sep).join('/'), { bytes: body.length, hash: createHash('sha1').update(body).digest('hex') });
  }
  return files;
}

const sizeOf = (files: Iterable<{ bytes: number }>): Size => {
  let count = 0;
  let bytes = 0;
  for (const file of files) {
    count++;
    bytes += file.bytes;
  }
  return { files: count, bytes };
};

const ratio = (a: number, b: number) => Number((a / b).toFixed(3));

/** The folder a path is counted in: its resource and type (`meta/movie`), or its first part. */
function folderOf(relative: string): string {
  const parts = relative.split('/');
  return parts.length >= 3 ? `${parts[0]}/${parts[1]}` : parts.length === 2 ? parts[0]! : '(top files)';
}

/**
 * Generates both contents of `size` under `work`, builds them with `run` and compares the outputs.
 * Leaves the outputs in `work` (removed by whoever removes `work`).
 */
export async function measureConfigurations(work: string, size: keyof typeof SIZES, run: RunBuild): Promise<ConfigurationsReport> {
  const plainContent = path.join(work, 'config-plain-content');
  const configuredContent = path.join(work, 'config-content');
  await generateContent(plainContent, SIZES[size]);
  await generateContent(configuredContent, { ...SIZES[size], configurable: true });
  const plainOut = path.join(work, 'config-plain-out');
  const configuredOut = path.join(work, 'config-out');
  const plainRun = await run(plainContent, plainOut, 'unconfigured build');
  const configuredRun = await run(configuredContent, configuredOut, 'configured build');

  const plain = sizeOf((await filesOf(plainOut)).values());
  const all = await filesOf(configuredOut);
  const total = sizeOf(all.values());
  // The configurations' folders are the top-level folders named `key=value,...`; the rest is the root.
  const segments = (await readdir(configuredOut, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory() && entry.name.includes('='))
    .map((entry) => entry.name)
    .sort();
  if (!segments.includes(DEFAULT_SEGMENT)) throw new Error(`no folder ${DEFAULT_SEGMENT} among ${segments.join(' ')}`);
  const trees = new Map<string, Files>([['root', new Map()], ...segments.map((s): [string, Files] => [s, new Map()])]);
  for (const [relative, file] of all) {
    const slash = relative.indexOf('/');
    const segment = slash > 0 ? relative.slice(0, slash) : '';
    if (trees.has(segment) && segment !== 'root') trees.get(segment)!.set(relative.slice(slash + 1), file);
    else trees.get('root')!.set(relative, file);
  }

  const treeSizes: Tree[] = [...trees].map(([tree, files]) => {
    const s = sizeOf(files.values());
    return { tree, ...s, filesRatio: ratio(s.files, plain.files), bytesRatio: ratio(s.bytes, plain.bytes) };
  });

  // Across the configurations' trees: the same path with the same bytes in all of them, and the
  // distinct (path, bytes) pairs, which a host that rewrote each path could serve one copy of.
  const configurationTrees = segments.map((s) => trees.get(s)!);
  const paths = new Set(configurationTrees.flatMap((files) => [...files.keys()]));
  const identical: { bytes: number }[] = [];
  const saved: { bytes: number }[] = [];
  const folders = new Map<string, Folder>();
  for (const relative of paths) {
    const versions = configurationTrees.map((files) => files.get(relative));
    const folderName = folderOf(relative);
    let folder = folders.get(folderName);
    if (!folder) {
      folder = {
        folder: folderName,
        filesPerTree: segments.map(() => 0),
        identical: 0,
        wholeFolderIdentical: true,
        copies: 0,
        written: { files: 0, bytes: 0 },
        copiesSize: { files: 0, bytes: 0 },
      };
      folders.set(folderName, folder);
    }
    versions.forEach((version, index) => version && folder.filesPerTree[index]!++);
    const seen = new Set<string>();
    for (const version of versions) {
      if (!version) continue;
      if (seen.has(version.hash)) saved.push(version);
      seen.add(version.hash);
    }
    if (seen.size === 1 && versions.every((version) => version !== undefined)) {
      identical.push(versions[0]!);
      folder.identical++;
    } else folder.wholeFolderIdentical = false;
  }
  for (const folder of folders.values()) Object.assign(folder, folderCopies(folder.folder, [...trees.values()]));
  const identicalSize = sizeOf(identical);
  const aTree = sizeOf(configurationTrees[0]!.values());
  const savedSize = sizeOf(saved);

  const shared = [...folders.values()].filter((folder) => folder.copies < trees.size);
  const folderSaved = {
    files: shared.reduce((sum, f) => sum + f.written.files - f.copiesSize.files, 0),
    bytes: shared.reduce((sum, f) => sum + f.written.bytes - f.copiesSize.bytes, 0),
  };

  const root = trees.get('root')!;
  const defaults = trees.get(DEFAULT_SEGMENT)!;
  const rootSame: { bytes: number }[] = [];
  const rootOnly: { bytes: number }[] = [];
  for (const [relative, file] of root) {
    const there = defaults.get(relative);
    if (!there) rootOnly.push(file);
    else if (there.hash === file.hash) rootSame.push(file);
  }

  return {
    size,
    configurations: segments.length,
    // The sizes walked here; of the runs, their time and peak RSS only.
    unconfigured: { ...plain, seconds: plainRun.seconds, maxRssMiB: plainRun.maxRssMiB },
    configured: {
      ...total,
      seconds: configuredRun.seconds,
      maxRssMiB: configuredRun.maxRssMiB,
      filesRatio: ratio(total.files, plain.files),
      bytesRatio: ratio(total.bytes, plain.bytes),
      secondsRatio: ratio(configuredRun.seconds, plainRun.seconds),
    },
    trees: treeSizes,
    identicalInAll: {
      ...identicalSize,
      filesShareOfATree: ratio(identicalSize.files, aTree.files),
      bytesShareOfATree: ratio(identicalSize.bytes, aTree.bytes),
    },
    savedOnePerDistinctFile: {
      ...savedSize,
      filesShareOfBuild: ratio(savedSize.files, total.files),
      bytesShareOfBuild: ratio(savedSize.bytes, total.bytes),
    },
    rootSameAsDefaults: { ...sizeOf(rootSame), rootOnly: sizeOf(rootOnly) },
    folders: [...folders.values()].sort((a, b) => (a.folder < b.folder ? -1 : 1)),
    savedByFolderRewrites: {
      files: folderSaved.files,
      bytes: folderSaved.bytes,
      folders: shared.length,
      filesShareOfBuild: ratio(folderSaved.files, total.files),
      bytesShareOfBuild: ratio(folderSaved.bytes, total.bytes),
    },
  };
}

/** How many copies of `folder` serve all `trees` (see Folder.copies), and the files written each way. */
function folderCopies(folder: string, trees: Files[]): Pick<Folder, 'copies' | 'written' | 'copiesSize'> {
  const copies: Files[] = [];
  const written: { bytes: number }[] = [];
  for (const files of trees) {
    const own: Files = new Map([...files].filter(([relative]) => folderOf(relative) === folder));
    written.push(...own.values());
    const agrees = (copy: Files) => [...own].every(([relative, file]) => (copy.get(relative)?.hash ?? file.hash) === file.hash);
    const copy = copies.find(agrees);
    if (copy) for (const [relative, file] of own) copy.set(relative, file);
    else copies.push(own);
  }
  return { copies: copies.length, written: sizeOf(written), copiesSize: sizeOf(copies.flatMap((copy) => [...copy.values()])) };
}

const MiB = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);

export function printConfigurations(report: ConfigurationsReport): void {
  const { unconfigured: u, configured: c } = report;
  console.log(`\nconfigurations (issue 29), ${report.size} content, ${report.configurations} configurations:`);
  console.log('build / tree                   files      MiB   files/unconf.   bytes/unconf.   seconds');
  const row = (name: string, s: Size, filesRatio: string, bytesRatio: string, seconds = '') =>
    console.log(
      `${name.padEnd(28)} ${String(s.files).padStart(8)} ${MiB(s.bytes).padStart(8)}   ${filesRatio.padStart(13)}   ${bytesRatio.padStart(13)}   ${seconds.padStart(7)}`,
    );
  row('unconfigured build', u, '1', '1', u.seconds.toFixed(2));
  row('configured build', c, String(c.filesRatio), String(c.bytesRatio), c.seconds.toFixed(2));
  for (const tree of report.trees) row(`  ${tree.tree}`, tree, String(tree.filesRatio), String(tree.bytesRatio));
  const i = report.identicalInAll;
  console.log(`  configured / unconfigured build time: ${c.secondsRatio}`);
  console.log(
    `  identical in every configuration's tree: ${i.files} files, ${MiB(i.bytes)} MiB (of one tree: ${i.filesShareOfATree} of its files, ${i.bytesShareOfATree} of its bytes)`,
  );
  const s = report.savedOnePerDistinctFile;
  console.log(
    `  not written if each distinct file of the configurations' trees were written once: ${s.files} files, ${MiB(s.bytes)} MiB (${s.filesShareOfBuild} of the build's files, ${s.bytesShareOfBuild} of its bytes)`,
  );
  const f = report.savedByFolderRewrites;
  console.log(
    `  not written if each folder were served from its fewest copies (${f.folders} folders): ${f.files} files, ${MiB(f.bytes)} MiB (${f.filesShareOfBuild} of the build's files, ${f.bytesShareOfBuild} of its bytes)`,
  );
  const r = report.rootSameAsDefaults;
  console.log(
    `  root files identical to ${DEFAULT_SEGMENT}/: ${r.files} (${MiB(r.bytes)} MiB); root files it has not: ${r.rootOnly.files} (${MiB(r.rootOnly.bytes)} MiB)`,
  );
  console.log('  folder               files per configuration   identical   all same   copies   files, MiB in all trees   in the copies');
  for (const f of report.folders) {
    console.log(
      `  ${f.folder.padEnd(20)} ${f.filesPerTree.join(' ').padEnd(25)} ${String(f.identical).padStart(9)}   ${(f.wholeFolderIdentical ? 'yes' : 'no').padEnd(8)}   ${String(f.copies).padStart(6)}   ${`${f.written.files}, ${MiB(f.written.bytes)}`.padStart(23)}   ${f.copiesSize.files}, ${MiB(f.copiesSize.bytes)}`,
    );
  }
}

/**
 * A bench step alone, as `npx tsx bench/<step>.ts [small|large]`: `measure` builds with the
 * compiled CLI in child processes, timed by wall clock only, in a temporary folder; `print` shows it.
 */
export async function runStandalone<R>(
  name: string,
  measure: (work: string, size: keyof typeof SIZES, run: RunBuild) => Promise<R>,
  print: (report: R) => void,
): Promise<void> {
  const size = (process.argv[2] ?? 'small') as keyof typeof SIZES;
  if (!SIZES[size]) throw new Error(`size must be one of ${Object.keys(SIZES).join(', ')}`);
  const work = path.join(os.tmpdir(), `addon-gen-${name}-${process.pid}`);
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  try {
    const report = await measure(work, size, async (content, out) => {
      execFileSync('sync');
      const started = performance.now();
      execFileSync(process.execPath, [BIN, 'build', content, '--out', out, '--json'], { stdio: ['ignore', 'ignore', 'inherit'] });
      return { seconds: (performance.now() - started) / 1000 };
    });
    print(report);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await runStandalone('configurations', measureConfigurations, printConfigurations);
}
