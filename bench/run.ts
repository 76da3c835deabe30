// `npm run bench [-- --size small|large|huge] [--no-scanners] [--no-serve] [--configurations small|large|none] [--search small|large|none]`:
// first the scanners of content text on floods of the tokens they look for (scanners.ts), then
// generates synthetic content and measures in one run four full builds and four disk floors (plain
// writes of the same files) in turn, a no-change rebuild, a one-item change and validate, each as
// its own child process, and how long serve --watch takes to show an edit (watch.ts); last, the
// output size per configuration of issue 29 (configurations.ts), at the small size unless told
// otherwise, whatever `--size`; then requests a second of serve
// against the official SDK's server (serve.ts). Prints a table and ratios and writes them to
// bench/results/latest.json, with each build's peak RSS per 100,000 items (movies and series). At
// the huge size (a million files) one build and one floor, see HUGE below. Figures are for
// comparison within one run: machines here are noisy.
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, readdir, readFile, rm, stat, statfs, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { measureConfigurations, printConfigurations, type ConfigurationsReport } from './configurations.js';
import { generateContent, SIZES } from './generate.js';
import { measureSearch, printSearch, type SearchReport } from './search.js';
import { freePort, measureServe, printServe, type ServeReport } from './serve.js';
import { measureWatch } from './watch.js';
import type { ScannerRow } from './scanners.js';

/** Longer than the two seconds after its last change within which a content file's stamp is not trusted (load/read.ts). */
const SETTLED_MS = 2500;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORK = path.join(ROOT, 'bench', '.work');
const BIN = path.join(ROOT, 'bin', 'addon-gen.js');
const RSS_HOOK = path.join(ROOT, 'bench', 'max-rss.mjs');
const FLOOR = path.join(ROOT, 'bench', 'floor.mjs');
const PLAN_ORDER = path.join(ROOT, 'bench', 'plan-order.mjs');
const SCANNERS = path.join(ROOT, 'bench', 'scanners.ts');

interface Step {
  step: string;
  seconds: number;
  maxRssMiB: number;
  /** For the steps that run addon-gen: peak RSS per 100,000 items (movies and series). */
  maxRssMiBPer100kItems?: number;
  files?: number;
  bytes?: number;
  written?: number;
  removed?: number;
}

/**
 * Waits until the disk that holds `dir` has nothing in flight and has done no writes or discards
 * for a second (at most two minutes), where Linux tells (/sys/dev/block): a step does not pay for
 * the writeback of the one before.
 */
async function quietDisk(dir: string): Promise<void> {
  const { dev } = await stat(dir);
  const file = `/sys/dev/block/${(dev >> 8) & 0xfff}:${(dev & 0xff) | ((dev >> 12) & 0xfff00)}/stat`;
  // Fields: 5 writes completed, 9 in flight, 12 discards completed (Documentation/block/stat.rst).
  const counters = async () => {
    const fields = (await readFile(file, 'utf8').catch(() => '')).trim().split(/\s+/);
    return fields.length >= 12 ? { inFlight: fields[8], done: `${fields[4]} ${fields[11]}` } : undefined;
  };
  let last = await counters();
  if (!last) return;
  let quietSince = performance.now();
  for (const deadline = performance.now() + 120_000; performance.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = (await counters())!;
    if (now.inFlight !== '0' || now.done !== last.done) quietSince = performance.now();
    else if (performance.now() - quietSince >= 1000) return;
    last = now;
  }
}

/** Runs `node args` in its own process; returns wall seconds, peak RSS (getrusage) and stdout. */
async function timed(args: string[]): Promise<{ seconds: number; maxRssMiB: number; stdout: string }> {
  // Start each step with no dirty pages from the previous one being flushed under it, and no
  // discards of deleted files still going on.
  execFileSync('sync');
  await quietDisk(WORK);
  const rssFile = path.join(WORK, 'rss.txt');
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', RSS_HOOK, ...args], {
    env: { ...process.env, MAX_RSS_FILE: rssFile },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited with ${code}\n${stdout}`);
  const maxRssKiB = Number(await readFile(rssFile, 'utf8'));
  return { seconds, maxRssMiB: maxRssKiB / 1024, stdout };
}

async function build(content: string, out: string, step: string, verb = 'build', options: string[] = []): Promise<Step> {
  const args = verb === 'build' ? [BIN, 'build', content, '--out', out, '--json', ...options] : [BIN, 'validate', content, '--json'];
  const run = await timed(args);
  const summary = JSON.parse(run.stdout).summary as Record<string, number>;
  return {
    step,
    seconds: run.seconds,
    maxRssMiB: run.maxRssMiB,
    files: summary.files,
    bytes: summary.bytes,
    written: summary.written,
    removed: summary.removed,
  };
}

/** Every file below `dir` with its mtime, to prove a rebuild touched nothing. */
async function mtimes(dir: string): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    times.set(file, (await stat(file)).mtimeMs);
  }
  return times;
}

/** A fresh folder on /dev/shm when it has room for the output three times over; else none. */
async function ramDisk(bytes: number): Promise<string | undefined> {
  const space = await statfs('/dev/shm').catch(() => undefined);
  if (!space || space.bavail * space.bsize < 3 * bytes) return undefined;
  const dir = path.join('/dev/shm', `addon-gen-bench-${process.pid}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir);
  return dir;
}

/** Floors and builds in turn, each kind at the same mean position (0+3+5+6 = 1+2+4+7). */
const FLOOR_BUILD_ORDER = ['floor', 'build', 'build', 'floor', 'build', 'floor', 'floor', 'build'] as const;

/**
 * The huge size (four times large: a million files, 1.4 GB) is for memory, whose peak a single
 * build tells: each build or floor there takes minutes, and so does deleting its files. So one
 * full build (the one that lists the files for the floor), one floor, one validate (at the end),
 * the no-change rebuild and the one-item change, and no RAM disk pair.
 */
const HUGE = 'huge';

/** The middle value, or the mean of the middle two. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The scanners' section, in a process of its own (with --expose-gc, so that no run pays for the
 * garbage of the one before); prints the worst ratio of each scanner, over all tokens.
 */
function scanners(): ScannerRow[] {
  const stdout = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', SCANNERS, '--json'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rows: ScannerRow[] = JSON.parse(stdout.toString());
  // Per scanner, the token of its worst ratio: 16/1 near 1 for a linear scan; 16/4 tells the
  // effect of caches (which 16 and 4 MiB both exceed) from a quadratic scan (4 there).
  console.log('scanner                       worst 16/1   token        worst 16/4   token');
  const worst = new Map<string, [ScannerRow, ScannerRow]>();
  for (const row of rows) {
    const [byRatio, by16to4] = worst.get(row.scanner) ?? [row, row];
    worst.set(row.scanner, [row.ratio > byRatio.ratio ? row : byRatio, row.ratio16to4 > by16to4.ratio16to4 ? row : by16to4]);
  }
  for (const [scanner, [a, b]] of worst) {
    console.log(
      `${scanner.padEnd(29)} ${a.ratio.toFixed(2).padStart(10)}   ${JSON.stringify(a.token).padEnd(12)} ${b.ratio16to4.toFixed(2).padStart(10)}   ${JSON.stringify(b.token)}`,
    );
  }
  return rows;
}

async function main() {
  const sizeArg = process.argv.indexOf('--size');
  const size = (sizeArg > 0 ? process.argv[sizeArg + 1] : 'small') as keyof typeof SIZES;
  if (!SIZES[size]) throw new Error(`--size must be one of ${Object.keys(SIZES).join(', ')}`);
  // `--configurations none` leaves out the configurations' step; its size is its own: a large
  // configurable build writes five trees of a quarter of a million files each.
  const configurationsArg = process.argv.indexOf('--configurations');
  const configurationsSize = configurationsArg > 0 ? process.argv[configurationsArg + 1]! : 'small';
  if (configurationsSize !== 'none' && !SIZES[configurationsSize as keyof typeof SIZES]) {
    throw new Error(`--configurations must be none or one of ${Object.keys(SIZES).join(', ')}`);
  }
  const searchArg = process.argv.indexOf('--search');
  const searchSize = searchArg > 0 ? process.argv[searchArg + 1]! : 'small';
  if (searchSize !== 'none' && !SIZES[searchSize as keyof typeof SIZES]) {
    throw new Error(`--search must be none or one of ${Object.keys(SIZES).join(', ')}`);
  }
  // `--no-serve`: without the requests a second of serve against the SDK's server (about 2.5 minutes).
  const serveToo = !process.argv.includes('--no-serve');
  // `--no-scanners`: only the builds (the scanners take about five minutes).
  const scannerRows = process.argv.includes('--no-scanners') ? [] : scanners();
  await rm(WORK, { recursive: true, force: true });
  await mkdir(WORK, { recursive: true });
  const content = path.join(WORK, 'content');
  const out = path.join(WORK, 'out');
  const generated = await generateContent(content, SIZES[size]);
  console.log(`${size}: ${generated.items} items in ${generated.files} files`);

  // The build first, for the list of files the floor writes. Then floors and builds in the order
  // of FLOOR_BUILD_ORDER: this kind of disk drifts within a run (writeback, and steps of several
  // times), and in this order a steady drift weighs the same on the builds as on the floors (both
  // have the same mean position). The ratio is of medians: on this shared machine one step in a
  // few takes a second or more longer for reasons of its own (neighbours, writeback), and with
  // one or two of each, that one step decided the ratio. Each writes into a new folder and
  // nothing is deleted until the end. Here the file system is ext4 without a journal,
  // whose inode allocator passes over the inodes deleted in the last minutes one by one (the
  // kernel's `recently_deleted`, seen with perf): after a quarter of a million files were
  // deleted, creating as many took several times longer (a floor of 6 s took 23 s).
  const steps: Step[] = [];
  const huge = size === HUGE;
  const floors: Step[] = [];
  const builds: Step[] = [];
  // At the huge size the listing build is the one full build, and the rebuilds start from it.
  const listed = huge ? out : path.join(WORK, 'listed');
  const listing = await build(content, listed, huge ? 'full build 1' : 'listing build');
  if (huge) builds.push(listing);
  if (huge) steps.push(listing);
  const listFile = path.join(WORK, 'list.json');
  // In the order the build writes them, the plan's: each item's meta, streams and subtitles in
  // turn. Written folder by folder instead, the floor took longer, with more system time (medians
  // of five alternating runs on this disk: 6.73 against 6.48 s): its two threads then create
  // files in one folder at the same time more often.
  execFileSync(process.execPath, [PLAN_ORDER, content, listed, listFile], { stdio: 'inherit' });
  const floor = async (step: string, dest: string): Promise<Step> => {
    const run = await timed([FLOOR, listFile, dest]);
    return { step, seconds: run.seconds, maxRssMiB: run.maxRssMiB, ...(JSON.parse(run.stdout) as { files: number; bytes: number }) };
  };
  // Validate too is measured three times, before, amid and after the builds, and its median is
  // taken: it is all processor work, so a slow stretch of the machine weighs on it more than on
  // builds that wait for the disk, and with one run (at the end) such a stretch decided its ratio
  // (0.42 in one run, against 0.28 to 0.39 in the eight before).
  const validations: Step[] = [];
  const validateStep = async () => {
    const step = await build(content, out, `validate ${validations.length + 1}`, 'validate');
    validations.push(step);
    steps.push(step);
  };
  if (!huge) await validateStep();
  const order = huge ? (['floor'] as const) : FLOOR_BUILD_ORDER;
  const buildCount = order.filter((k) => k === 'build').length;
  for (const [index, kind] of order.entries()) {
    if (index === order.length / 2) await validateStep();
    let step: Step;
    if (kind === 'floor') {
      step = await floor(`disk floor ${floors.length + 1}`, path.join(WORK, `floor-${floors.length + 1}`));
      floors.push(step);
    } else {
      // The last build's output is the one the rebuilds below start from.
      const last = builds.length === buildCount - 1;
      step = await build(content, last ? out : path.join(WORK, `out-${builds.length + 1}`), `full build ${builds.length + 1}`);
      builds.push(step);
    }
    steps.push(step);
  }
  const rebuilt = builds[builds.length - 1]!;

  // Three times, for the median: it takes under a second, so a hiccup of the machine decides one.
  // Each finds every content file with the stamp the last build recorded, and reads none.
  const before = await mtimes(out);
  const noChanges: Step[] = [];
  for (let i = 1; i <= 3; i++) noChanges.push(await build(content, out, `no-change rebuild ${i}`));
  steps.push(...noChanges);
  // The content files rewritten with the same bytes (a checkout does that): their stamps differ,
  // so the rebuild reads and hashes them all before it finds nothing changed.
  for (const name of await readdir(content, { recursive: true })) {
    const file = path.join(content, name);
    if ((await stat(file)).isFile()) await writeFile(file, await readFile(file));
  }
  const rewritten = await build(content, out, 'no-change, files rewritten');
  steps.push(rewritten);
  const after = await mtimes(out);
  const touched = [...after].filter(([file, time]) => before.get(file) !== time).length;

  // One movie renamed: its meta, the catalog pages that list it (sorted by name, it may move).
  const firstMovies = path.join(content, 'movies', (await readdir(path.join(content, 'movies'))).sort()[0]!);
  const text = await readFile(firstMovies, 'utf8');
  await writeFile(firstMovies, text.replace(/name: "([^"]*)"/, 'name: "Renamed $1"'));
  const oneChange = await build(content, out, 'one-item change');
  steps.push(oneChange);
  // The same once every content file's stamp can be trusted: the change above came right after
  // they were all rewritten, too recently for their stamps (load/read.ts, settledStamp), so it read
  // and hashed them all to find the one edited. A build once they have settled records their
  // stamps; then another movie renamed.
  await sleep(SETTLED_MS);
  steps.push(await build(content, out, 'no-change, files settled'));
  const secondMovies = path.join(content, 'movies', (await readdir(path.join(content, 'movies'))).sort()[1]!);
  await writeFile(secondMovies, (await readFile(secondMovies, 'utf8')).replace(/name: "([^"]*)"/, 'name: "Renamed $1"'));
  const settledChange = await build(content, out, 'one-item change, files settled');
  steps.push(settledChange);
  // A release: a new version in addon.yaml, which only the manifest and the pages show.
  const addonFile = path.join(content, 'addon.yaml');
  await writeFile(addonFile, (await readFile(addonFile, 'utf8')).replace(/^version: .*$/m, 'version: 1.0.1'));
  const release = await build(content, out, 'release (new version)');
  steps.push(release);
  // A film added (a sequel of the third file's first, listed beside it), then removed again: the
  // pages after it in each list move, and the last page of each with them.
  const thirdMovies = path.join(content, 'movies', (await readdir(path.join(content, 'movies'))).sort()[2]!);
  const withoutSequel = await readFile(thirdMovies, 'utf8');
  const [original] = /^- id: [\s\S]*?(?=\n- id: )/.exec(withoutSequel) ?? [''];
  const sequel = original.replace(/^- id: "[^"]*"/, '- id: "bm:sequel"').replace(/\n  name: "([^"]*)"/, '\n  name: "$1 II"');
  await writeFile(thirdMovies, `${withoutSequel.trimEnd()}\n${sequel}\n`);
  const added = await build(content, out, 'one item added');
  steps.push(added);
  await writeFile(thirdMovies, withoutSequel);
  const removed = await build(content, out, 'one item removed');
  steps.push(removed);
  // The whole pipeline over the output as it stands, as after a change an edit cannot take (a
  // setting, an id) or a new version of addon-gen: every file is compared with what the last
  // build recorded, which it reads at the start of the write stage, where its memory peaks.
  const whole = await build(content, out, 'whole rebuild, --no-reuse', 'build', ['--no-reuse']);
  steps.push(whole);
  await validateStep();
  // `serve --watch` on the same content: from the save of an edit to its first answer. Not at the
  // huge size, which is for memory: each edit there is a rebuild of minutes.
  const watch = huge ? undefined : await measureWatch(content, await freePort());
  if (watch) {
    console.log(`serve --watch, save to new answer (s): ${watch.seconds.map((s) => s.toFixed(2)).join(', ')}`);
    console.log(`serve --watch, save to catalog pages answered early (s): ${watch.pages.map((s) => s?.toFixed(2) ?? 'none').join(', ')}`);
    console.log(`serve --watch, save to end of rebuild (s): ${watch.rebuilt.map((s) => s.toFixed(2)).join(', ')}`);
    console.log(`serve --watch, a save soon after another, to its new answer (s): ${watch.soonAfter.map((s) => s.toFixed(2)).join(', ')}`);
    console.log(`serve --watch, a film added, save to its meta (s): ${watch.added.map((s) => s.toFixed(2)).join(', ')}`);
    console.log(`serve --watch, a film added, save to end of rebuild (s): ${watch.addedRebuilt.map((s) => s.toFixed(2)).join(', ')}`);
    console.log(`serve --watch, that film removed, save to its meta's 404 (s): ${watch.removed.map((s) => s.toFixed(2)).join(', ')}`);
    console.log(`serve --watch, that film removed, save to end of rebuild (s): ${watch.removedRebuilt.map((s) => s.toFixed(2)).join(', ')}`);
  }

  // The same build and floor on a RAM disk, where writing costs no more than the system calls:
  // the build's own work shows there in full, whatever the disk does to the figures above.
  const ram = huge ? undefined : await ramDisk(rebuilt.bytes ?? 0);
  let ramRatio: number | undefined;
  if (ram) {
    const ramOut = path.join(ram, 'out');
    const ramBuild = await build(content, ramOut, 'full build, RAM disk');
    await rm(ramOut, { recursive: true, force: true });
    const ramFloor = await floor('disk floor, RAM disk', path.join(ram, 'floor'));
    await rm(ram, { recursive: true, force: true });
    steps.push(ramBuild, ramFloor);
    ramRatio = ramBuild.seconds / ramFloor.seconds;
  }

  // Peak RSS per 100,000 items (movies and series, not episodes) of each step that runs addon-gen:
  // the same figure at every size when memory grows in proportion to the catalog, and falling
  // with size where a fixed part (code, threads) weighs.
  for (const s of steps) {
    if (!s.step.includes('floor')) s.maxRssMiBPer100kItems = Number(((s.maxRssMiB * 100_000) / generated.items).toFixed(1));
  }
  console.log(`\nstep                         seconds   peak RSS MiB   per 100k items   files     written   removed`);
  for (const s of steps) {
    console.log(
      `${s.step.padEnd(28)} ${s.seconds.toFixed(2).padStart(7)}   ${s.maxRssMiB.toFixed(0).padStart(12)}   ${String(s.maxRssMiBPer100kItems ?? '').padStart(14)}   ${String(s.files ?? '').padStart(7)}   ${String(s.written ?? '').padStart(7)}   ${String(s.removed ?? '').padStart(7)}`,
    );
  }
  console.log(`(items: ${generated.items.toLocaleString('en')} movies and series)`);
  const ratio = (a: number, b: number) => Number((a / b).toFixed(2));
  const floorMedian = median(floors.map((f) => f.seconds));
  const buildMedian = median(builds.map((b) => b.seconds));
  const ratios = {
    [`build / floor (medians of ${floors.length})`]: ratio(buildMedian, floorMedian),
    // Numbers in the JSON as everywhere else; printed on one line.
    'build / floor, each pair': builds.map((b, i) => ratio(b.seconds, floors[i]!.seconds)),
    'no-change rebuild / full build': ratio(median(noChanges.map((n) => n.seconds)), buildMedian),
    'no-change, files rewritten / full build': ratio(rewritten.seconds, buildMedian),
    'one-item change / full build': ratio(oneChange.seconds, buildMedian),
    'one-item change, files settled / full build': ratio(settledChange.seconds, buildMedian),
    'release (new version) / full build': ratio(release.seconds, buildMedian),
    'one item added / full build': ratio(added.seconds, buildMedian),
    'one item removed / full build': ratio(removed.seconds, buildMedian),
    'whole rebuild over the output / full build': ratio(whole.seconds, buildMedian),
    ...(watch && {
      'serve --watch: save to answer, s (median)': Number(median(watch.seconds).toFixed(2)),
      'serve --watch: save to end of rebuild, s (median)': Number(median(watch.rebuilt).toFixed(2)),
      'serve --watch: a save soon after another, to its answer, s (median)': Number(median(watch.soonAfter).toFixed(2)),
      'serve --watch: a film added, save to its meta, s (median)': Number(median(watch.added).toFixed(2)),
      'serve --watch: that film removed, save to its 404, s (median)': Number(median(watch.removed).toFixed(2)),
    }),
    'validate / full build (medians)': ratio(median(validations.map((v) => v.seconds)), buildMedian),
    ...(ramRatio !== undefined && { 'build / floor on a RAM disk': Number(ramRatio.toFixed(2)) }),
  };
  console.log('\nratios (same run):');
  for (const [name, value] of Object.entries(ratios)) console.log(`  ${name.padEnd(32)} ${Array.isArray(value) ? value.join(' ') : value}`);
  console.log(`  files whose mtime a no-change rebuild changed: ${touched}`);

  // Last, so that its files, written and compared after the steps above, weigh on none of them.
  let configurations: ConfigurationsReport | undefined;
  if (configurationsSize !== 'none') {
    configurations = await measureConfigurations(WORK, configurationsSize as keyof typeof SIZES, (dir, dest, step) => build(dir, dest, step));
    printConfigurations(configurations);
  }

  let search: SearchReport | undefined;
  if (searchSize !== 'none') {
    search = await measureSearch(WORK, searchSize as keyof typeof SIZES, (dir, dest, step) => build(dir, dest, step));
    printSearch(search);
  }

  // Last of all: its servers must have both cores to themselves and the load generator.
  let serve: ServeReport | undefined;
  if (serveToo) {
    serve = await measureServe(WORK);
    printServe(serve);
  }

  const results = path.join(ROOT, 'bench', 'results');
  await mkdir(results, { recursive: true });
  const report = {
    size,
    date: new Date().toISOString(),
    node: process.version,
    generated,
    itemsCounted: 'movies + series',
    steps,
    ratios,
    noChangeTouched: touched,
    scanners: scannerRows,
    configurations,
    search,
    serve,
  };
  await writeFile(path.join(results, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  await rm(WORK, { recursive: true, force: true });
}

await main();
