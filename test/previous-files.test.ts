// What the last build recorded, matched to the planned files by place (src/write/previous-files.ts),
// answers every question the write stage asks as a map of every recorded path does: for records
// and plans that share most paths in the same order, with files added, removed, moved near and
// far, recorded twice, and written or removed by edits since. PROPERTY_RUNS runs more. The state
// file's paths, read one at a time, are those JSON.parse reads, and a state file of another layout
// is read whole.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { columnsIn, PreviousFiles, readPreviousState, type EditsSince, type RecordedEntry } from '../src/write/previous-files.js';
import { filesOf, readStateFile, stateFileOf, writeState, type Written } from '../src/write/state.js';
import { tempDir } from './support/content.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 300);

/** A record and a plan made from it: each block of the record kept, dropped, or moved, with new paths among them. */
const scenario = fc
  .record({
    recorded: fc.integer({ min: 0, max: 1500 }),
    blocks: fc.array(
      fc.record({
        length: fc.integer({ min: 1, max: 400 }),
        fate: fc.constantFrom('kept', 'kept', 'kept', 'dropped', 'moved'),
        added: fc.integer({ min: 0, max: 300 }),
      }),
      { maxLength: 8 },
    ),
    twice: fc.array(fc.nat(), { maxLength: 3 }),
    written: fc.array(fc.record({ at: fc.nat(), fresh: fc.boolean(), bytes: fc.integer({ min: -1, max: 50 }) }), { maxLength: 5 }),
    removed: fc.array(fc.nat(), { maxLength: 5 }),
    inputs: fc.integer({ min: 1, max: 20 }),
  })
  .map(({ recorded, blocks, twice, written, removed, inputs }) => {
    const paths = Array.from({ length: recorded }, (_, i) => `meta/movie/m${i}.json`);
    const planned: string[] = [];
    const moved: string[] = [];
    let from = 0;
    let fresh = 0;
    for (const block of blocks) {
      const part = paths.slice(from, (from += block.length));
      if (block.fate === 'kept') planned.push(...part);
      if (block.fate === 'moved') moved.push(...part);
      for (let i = 0; i < block.added; i++) planned.push(`stream/movie/new${fresh++}.json`);
    }
    planned.push(...paths.slice(from), ...moved);
    const entries: RecordedEntry[] = paths.map((file, i) => [file, i % 7 === 0 ? -1 : i, i % 5 === 0 ? undefined : `f${i % inputs}`]);
    for (const at of twice) if (entries.length > 0) entries.splice(at % entries.length, 0, [entries[at % entries.length]![0], 3, 'f0']);
    const edits: EditsSince = {
      written: written.map(({ at, fresh, bytes }): [string, Written] => [
        fresh || paths.length === 0 ? `subtitles/movie/edit${at}.json` : paths[at % paths.length]!,
        { bytes },
      ]),
      removed: paths.length === 0 ? [] : removed.map((at) => paths[at % paths.length]!),
    };
    return { entries, planned: planned.map((path) => ({ path })), edits };
  });

/** What the write stage had: a map of the record's entries, with the edits set and deleted after. */
function model(entries: readonly RecordedEntry[], edits: EditsSince): Map<string, Written> {
  const files = new Map<string, Written>();
  const twice = new Set<string>();
  for (const [file, bytes, inputs] of entries) {
    if (files.has(file)) twice.add(file);
    files.set(file, { bytes, inputs });
  }
  // A path recorded twice is in doubt: compared, whatever its size.
  for (const file of twice) files.set(file, { ...files.get(file)!, bytes: -1 });
  for (const [file, written] of edits.written) files.set(file, written);
  for (const file of edits.removed) files.delete(file);
  return files;
}

describe('what the last build recorded, matched to the plan', () => {
  it('answers as a map of every recorded path', () => {
    fc.assert(
      fc.property(scenario, fc.boolean(), ({ entries, planned, edits }, withEdits) => {
        const since = withEdits ? edits : { written: [], removed: [] };
        const expected = model(entries, since);
        const previous = new PreviousFiles(entries, entries.length, planned, since);
        expect(previous.size).toBe(expected.size);
        expect(new Map(previous.entries())).toEqual(new Map([...expected].map(([file, w]) => [file, { bytes: w.bytes, inputs: w.inputs }])));
        expect(previous.paths().sort()).toEqual([...expected.keys()].sort());
        planned.forEach(({ path }, index) => {
          const written = expected.get(path);
          expect(previous.atPlanned(index, path), path).toEqual(written && { bytes: written.bytes, inputs: written.inputs });
          expect(previous.hasPlanned(index, path)).toBe(written !== undefined);
        });
        const plannedPaths = new Set(planned.map(({ path }) => path));
        const besides = [...previous.besidesPlan()];
        // Every recorded path not planned is among those matched to no planned file.
        for (const file of expected.keys()) if (!plannedPaths.has(file)) expect(besides).toContain(file);
        for (const file of besides) expect(previous.hasBesidesPlan(file)).toBe(true);
        for (const file of ['meta/movie/none.json', ...expected.keys()]) expect(previous.has(file)).toBe(expected.has(file));
        // The next record is the same only when it lists the planned files, each as recorded, and no other.
        const next = planned.map(({ path }): [string, Written] => [path, expected.get(path) ?? { bytes: 1 }]);
        const same = planned.length === expected.size && planned.every(({ path }) => expected.has(path));
        expect(previous.recordsTheSame(next)).toBe(same);
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps no path of its own for the entries it matched at their place', () => {
    const planned = Array.from({ length: 10_000 }, (_, i) => ({ path: `meta/movie/m${i}.json` }));
    // Two files added near the start, one removed near the end: every other entry moves a little.
    const recorded = planned.filter((_, i) => i !== 3 && i !== 4).map(({ path }, i): RecordedEntry => [path, i, 'f']);
    recorded.splice(9_000, 0, ['meta/movie/gone.json', 1, 'f']);
    const previous = new PreviousFiles(recorded, recorded.length, planned);
    expect([...previous.besidesPlan()]).toEqual(['meta/movie/gone.json']);
    expect(previous.hasPlanned(3, planned[3]!.path)).toBe(false);
    expect(previous.atPlanned(9_999, planned[9_999]!.path)).toEqual({ bytes: 9_997, inputs: 'f' });
  });

  it('reads the paths of a state file one at a time as JSON.parse reads them, and one of another layout whole', async () => {
    const paths = [
      'manifest.json',
      'meta/movie/a "quoted" id.json',
      'meta/movie/back\\slash.json',
      'meta/series/日本語 😀.json',
      'catalog/movie/top/search=tab\there.json',
      'catalog/movie/top/search=[x],{y}.json',
      'stream/movie/end.json',
    ];
    const root = path.join(await tempDir(), 'out');
    await mkdir(root);
    const files = paths.map((file, i): [string, Written] => [file, { bytes: i * 10, inputs: i % 2 === 0 ? `f${i}` : undefined }]);
    await writeState(root, { files: () => files, complete: true, foreign: ['CNAME'], record: { inputs: 'x' } }, 40);
    const planned = paths.map((file) => ({ path: file }));
    const noEdits = () => Promise.resolve(undefined);
    const whole = async () =>
      new Map([...filesOf((await readStateFile(root))!.state)].map(([file, w]) => [file, { bytes: w.bytes, inputs: w.inputs }]));
    const read = async () => new Map((await readPreviousState(root, planned, noEdits)).files.entries());
    // One not plainly below the output folder (a backslash) is left out either way.
    expect([...(await whole()).keys()]).toEqual(paths.filter((file) => !file.includes('\\')));
    expect(await read()).toEqual(await whole());
    const state = await readPreviousState(root, planned, noEdits);
    expect([state.complete, state.foreign, state.record]).toEqual([true, ['CNAME'], { inputs: 'x' }]);
    const text = await readFile(stateFileOf(root), 'utf8');
    // Read one at a time from the layout writeState makes; another is read whole.
    expect([...columnsIn(Buffer.from(text))!.paths]).toEqual((await readStateFile(root))!.state.paths);
    expect(columnsIn(Buffer.from(JSON.stringify(JSON.parse(text), null, 2)))).toBeUndefined();
    // Other layouts and hand edits, each read as JSON.parse reads the whole file.
    for (const other of [
      JSON.stringify(JSON.parse(text), null, 2),
      text.replace('"manifest.json"', '12'),
      text.replace('"stream/movie/end.json"', '"stream/movie/\\u0065nd.json"'),
    ]) {
      await writeFile(stateFileOf(root), other);
      expect(await read(), other).toEqual(await whole());
    }
    // Not JSON, or columns of different lengths: nothing known.
    for (const broken of [
      text.replace('"stream/movie/end.json"', '"stream/movie/end.json","extra.json"'),
      text.replace(',"sizes":[0,', ',"sizes":[0,5,'),
      text.slice(0, -1),
      text.replace('"stream/movie/end.json"', '"stream/movie/\u0001.json"'),
      text.replace('"manifest.json"', '"manifest.json",'),
    ]) {
      await writeFile(stateFileOf(root), broken);
      expect(await readStateFile(root)).toBeUndefined();
      expect((await readPreviousState(root, planned, noEdits)).files.size, broken).toBe(0);
    }
  });
});
