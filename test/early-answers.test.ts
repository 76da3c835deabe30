// serve --watch's early answers after random edits of the small benchmark's kind of content (sorted
// catalogs over several pages, genres, series): whatever the edit, each answer is the bytes a clean
// build of the edited content writes, and when the catalog pages are answered too, the served tree
// with the answers is that build's tree. The examples in plan.test.ts show each case; this looks
// for the ones nobody thought of.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateContent } from '../bench/generate.js';
import { build, type BuildResult } from '../src/build/index.js';
import { earlyAnswers, provisionalContent, type BuiltTree, type EarlyAnswers } from '../src/plan/early-answers.js';
import type { CheckedItems } from '../src/validate/index.js';
import { readTree, tempDir } from './support/content.js';
import { contentEdits, random } from './support/random-edits.js';

interface Built {
  result: BuildResult;
  /** What the build had once each file was checked on its own. */
  checked: CheckedItems;
  tree: Map<string, Buffer>;
}

async function buildOnce(contentDir: string): Promise<Built> {
  const out = await tempDir();
  let checked: CheckedItems | undefined;
  const result = await build({ contentDir, outDir: out, hosts: [], keepPreviews: true, onItemsChecked: (items) => void (checked = items) });
  expect(result.ok, JSON.stringify(result.diagnostics)).toBe(true);
  return { result, checked: checked!, tree: await readTree(out) };
}

const ITEM_FILE = /^(meta|stream|subtitles)\//;

/** Files answered as removed, by every check. */
let removedAnswered = 0;

/**
 * Checks answers against the two trees; returns what they held: none (refused), the item files,
 * or the item files and the catalog pages.
 */
function check(answers: EarlyAnswers | undefined, before: Built, after: Built, what: string): 'refused' | 'files' | 'pages' {
  if (!answers) return 'refused';
  const bytes = (tree: Map<string, Buffer>, file: string) => tree.get(file)?.toString();
  // A file answered as removed (null) is one the build before wrote and the rebuild does not.
  for (const [file, body] of answers.files) {
    expect(body ?? undefined, `${what}: ${file}`).toBe(bytes(after.tree, file));
    if (body === null) expect(before.tree.has(file), `${what}: ${file} removed, but not there before`).toBe(true);
    if (body === null) removedAnswered++;
  }
  const paths = new Set([...before.tree.keys(), ...after.tree.keys()]);
  const changed = [...paths].filter((file) => bytes(before.tree, file) !== bytes(after.tree, file));
  // Every item file the edit changed is answered: the served one would be stale.
  for (const file of changed.filter((f) => ITEM_FILE.test(f))) expect(answers.files.has(file), `${what}: ${file} not answered`).toBe(true);
  const pages = answers.pages();
  if (!pages) return 'files';
  for (const [file, body] of pages) expect(body, `${what}: ${file}`).toBe(bytes(after.tree, file));
  // With the pages, the answers are all that changed.
  for (const file of changed) expect(answers.files.has(file) || pages.has(file), `${what}: ${file} changed, not answered`).toBe(true);
  return 'pages';
}

describe('early answers after random edits', () => {
  it('are each the bytes the rebuild writes, and with the catalog pages, all it changes', async () => {
    const content = await tempDir();
    await generateContent(content, { movies: 320, series: 12, episodes: 4, itemsPerFile: 40 });
    const next = random(19);
    const edits = contentEdits(next);
    // The first seven, which edit an item's fields, and an item removed or added.
    const answered = [...edits.slice(0, 7), ...edits.filter(([name]) => name === 'remove' || name === 'add')];
    const counts = { refused: 0, files: 0, pages: 0 };
    let before = await buildOnce(content);
    for (let step = 0; step < 24; step++) {
      const edited: string[] = [];
      const applied: string[] = [];
      for (let e = 0; e < (next() < 0.3 ? 2 : 1); e++) {
        // Mostly edits of an item's fields, or an item removed or added, which are answered early;
        // now and then one that is not.
        const pool = next() < 0.8 ? answered : edits;
        const [name, edit] = pool[Math.floor(next() * pool.length)]!;
        // Movies more often than series, which alone have episodes.
        const folder = name === 'episode title' || next() < 0.3 ? 'series' : 'movies';
        const list = (await readdir(path.join(content, folder))).sort();
        const relative = `${folder}/${list[Math.floor(next() * list.length)]!}`;
        const file = path.join(content, relative);
        await writeFile(file, edit(await readFile(file, 'utf8')));
        edited.push(relative);
        applied.push(`${name} in ${relative}`);
      }
      const after = await buildOnce(content);
      const what = `step ${step} (${applied.join(', ')})`;
      const sources = new Set(after.result.sources.filter((source) => edited.includes(source.relative)).map((source) => source.file));
      const served: BuiltTree = {
        content: before.result.content!,
        manifest: before.tree.get('manifest.json')!.toString(),
        settings: before.checked.settings,
        previews: before.result.previews,
      };
      // As serve makes them: from the checked content, and sooner from the files checked each on its own.
      const answers = earlyAnswers(served, after.result.content!, sources);
      const provisional = provisionalContent(served, after.checked, sources);
      const sooner = provisional && earlyAnswers(served, provisional, sources);
      counts[check(answers, before, after, what)]++;
      check(sooner, before, after, `${what}, from the files checked each on its own`);
      before = after;
    }
    // The edits reached each case.
    expect(counts.pages, JSON.stringify(counts)).toBeGreaterThanOrEqual(8);
    expect(counts.refused + counts.files, JSON.stringify(counts)).toBeGreaterThanOrEqual(2);
    expect(removedAnswered).toBeGreaterThan(0);
  }, 120_000);
});
