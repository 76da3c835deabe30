// How many subtitles files each way of answering every subtitles request costs, on the benchmark
// content and on two variants of it (episodes without subtitles; one movie in ten with them).
// `npx tsx bench/subtitles-files.ts [small|large]`; figures in bench/README.md.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { build } from '../src/build/index.js';
import { generateContent, SIZES } from './generate.js';

const size = (process.argv[2] ?? 'large') as keyof typeof SIZES;

/** Removes the `subtitles:` list (two lines) of the items whose ordinal `keep` refuses, file by file. */
async function dropSubtitles(dir: string, folder: string, keep: (n: number) => boolean) {
  let n = 0;
  for (const name of await readdir(path.join(dir, folder))) {
    const file = path.join(dir, folder, name);
    const lines = (await readFile(file, 'utf8')).split('\n');
    const out: string[] = [];
    for (let i = 0; i < lines.length; i++) {
      if (/^\s*subtitles:$/.test(lines[i]!) && !keep(n++)) {
        i++;
        continue;
      }
      out.push(lines[i]!);
    }
    await writeFile(file, out.join('\n'));
  }
}

async function count(dir: string, sub: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (entry.isFile() && entry.name.endsWith('.json') && path.join(entry.parentPath, entry.name).includes(`${path.sep}${sub}${path.sep}`)) total++;
  }
  return total;
}

const root = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-subtitles-'));
try {
  const variants: [string, (dir: string) => Promise<void>][] = [
    ['benchmark content (a subtitle for every movie and episode)', async () => {}],
    ['episodes without subtitles', (dir) => dropSubtitles(dir, 'series', () => false)],
    [
      'episodes without, one movie in ten with',
      async (dir) => {
        await dropSubtitles(dir, 'series', () => false);
        await dropSubtitles(dir, 'movies', (n) => n % 10 === 0);
      },
    ],
  ];
  for (const [name, change] of variants) {
    const dir = path.join(root, 'content');
    await generateContent(dir, SIZES[size]);
    await change(dir);
    const out = path.join(root, 'dist');
    const result = await build({ contentDir: dir, outDir: out, baseUrl: 'https://example.org/', hosts: [] });
    if (!result.ok) throw new Error(`${name}: the build failed`);
    const content = result.content!;
    const owners = content.items.flatMap((item) => (item.videos ?? [item]).map((owner) => ({ type: item.type, owner })));
    const withSubtitles = owners.filter((o) => o.owner.subtitles.length > 0);
    const idsJson = JSON.stringify(withSubtitles.map((o) => o.owner.id)).length;
    console.log(`${name}:`);
    console.log(`  items and videos: ${owners.length}, with subtitles: ${withSubtitles.length}`);
    console.log(`  written (types with subtitles, [] for the rest): ${await count(out, 'subtitles')} subtitles files`);
    console.log(`  [] for every item and video of every type: ${owners.length} files`);
    console.log(`  manifest narrowed to the ids with subtitles: idPrefixes of ${idsJson} bytes (the SDK's limit is 8,192 for the whole manifest)`);
    await rm(out, { recursive: true, force: true });
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
