// `npx tsx bench/compare.ts --before <checkout> [--size small|large] [--runs 3]`: the builds and
// validations of this checkout and of another one (an older commit, compiled: `npx tsc -p
// tsconfig.build.json` in it), alternated in one run on the same generated content, each a process
// of its own. Prints the median seconds of each and the ratio after/before: for a refactor that
// must be no slower. Figures are for comparison within one run (bench/README.md).
import { spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateContent, SIZES } from './generate.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORK = path.join(ROOT, 'bench', '.work');
const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const before = arg('--before');
if (!before) throw new Error('--before <checkout of the other version> is required');
const size = arg('--size') ?? 'large';
const options = SIZES[size === 'small' ? 'small' : 'large'];
const runs = Number(arg('--runs') ?? '3');
const bins = { before: path.join(path.resolve(before), 'bin', 'addon-gen.js'), after: path.join(ROOT, 'bin', 'addon-gen.js') };

function seconds(args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve, reject) =>
    child.on('close', (code) => (code === 0 ? resolve((performance.now() - started) / 1000) : reject(new Error(`${args.join(' ')}: exit ${code}`)))),
  );
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

await mkdir(WORK, { recursive: true });
const content = path.join(WORK, `compare-${size}`);
await generateContent(content, options);
const times: Record<string, number[]> = {};
const record = (key: string, value: number) => (times[key] ??= []).push(value);
for (let run = 0; run < runs; run++) {
  // Alternated, and the order swapped each run: neither version always goes first.
  const order = run % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
  for (const version of order) {
    const out = path.join(WORK, `compare-out-${version}`);
    await rm(out, { recursive: true, force: true });
    // The bookkeeping and what a build keeps for the next: each build here starts from nothing.
    for (const beside of ['.addon-gen.json', '.addon-gen-kept', '.addon-gen-edits'])
      await rm(path.join(WORK, `.compare-out-${version}${beside}`), { force: true });
    record(`build ${version}`, await seconds([bins[version], 'build', content, '--out', out, '--quiet']));
    record(`validate ${version}`, await seconds([bins[version], 'validate', content, '--quiet']));
  }
}
for (const step of ['build', 'validate']) {
  const [b, a] = [median(times[`${step} before`]!), median(times[`${step} after`]!)];
  console.log(`${step.padEnd(9)} before ${b.toFixed(2)} s, after ${a.toFixed(2)} s: after/before ${(a / b).toFixed(3)} (median of ${runs})`);
}
await rm(WORK, { recursive: true, force: true });
