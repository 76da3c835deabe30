// A seeded, deterministic generator of synthetic content in addon-gen's own YAML format, for the
// benchmark and the scale smoke test: movies and series, two streams and one subtitle per movie
// and per episode, five catalogs with genres, about 100 items per file. With `configurable`, the
// same items in the form of issue 29 (see `configurable` below).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface GenerateOptions {
  movies: number;
  series: number;
  episodes: number;
  seed?: number;
  itemsPerFile?: number;
  /**
   * The same content as a configurable addon: `config` with a select `quality` (sd, hd; default
   * hd) and a checkbox `extras` (default false); each movie and episode's CDN stream kept for hd
   * and a second CDN stream for sd (the torrent in both); one movie and one series in ten, and the
   * `picks` catalog, kept only with extras. Nothing else changes: the seeded values are the same.
   */
  configurable?: boolean;
  /**
   * `search: true` on the movies and series catalogs (issue 30), with this `searchQueries`:
   * every name's words and whole name get result files. Nothing else changes.
   */
  search?: 'all' | 'words' | 'names';
}

export const SIZES: Record<'small' | 'large' | 'huge', GenerateOptions> = {
  small: { movies: 2_000, series: 50, episodes: 20 },
  large: { movies: 50_000, series: 1_000, episodes: 50 },
  // Four times large: about a million output files (issue 32, memory that does not grow with the catalog).
  huge: { movies: 200_000, series: 4_000, episodes: 50 },
};

const GENRES = ['Action', 'Comedy', 'Documentary', 'Drama', 'Fantasy', 'Horror', 'Romance', 'Science Fiction', 'Thriller', 'Western'];
const WORDS = ['silent', 'river', 'night', 'city', 'golden', 'last', 'secret', 'winter', 'house', 'road', 'star', 'lost'];

/** mulberry32: a tiny seeded PRNG, so that the same options always give the same content. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Writes the content folder `dir` (removing what was there) and returns the number of items. */
export async function generateContent(dir: string, options: GenerateOptions): Promise<{ items: number; files: number }> {
  const next = random(options.seed ?? 42);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const hex = (length: number) => Array.from({ length }, () => Math.floor(next() * 16).toString(16)).join('');
  const title = () => `The ${pick(WORDS)} ${pick(WORDS)}`.replace(/^The (\w)/, (_, c: string) => `The ${c.toUpperCase()}`);
  const date = () => {
    const year = 1920 + Math.floor(next() * 100);
    return `${year}-${String(1 + Math.floor(next() * 12)).padStart(2, '0')}-${String(1 + Math.floor(next() * 28)).padStart(2, '0')}`;
  };
  const genres = () => [...new Set([pick(GENRES), pick(GENRES)])];
  const configurable = options.configurable === true;
  const searched = options.search ? `, search: true, searchQueries: ${options.search}` : '';
  const streams = (key: string, indent: string) =>
    [
      `${indent}streams:`,
      ...(configurable
        ? [
            `${indent}  - { url: "https://cdn.example.org/${key}.mp4", name: CDN, description: 1080p, when: { quality: hd } }`,
            `${indent}  - { url: "https://cdn.example.org/${key}.sd.mp4", name: CDN, description: 480p, when: { quality: sd } }`,
          ]
        : [`${indent}  - { url: "https://cdn.example.org/${key}.mp4", name: CDN, description: 1080p }`]),
      `${indent}  - { infoHash: ${hex(40)}, fileIdx: 0, name: P2P, description: Torrent }`,
      `${indent}subtitles:`,
      `${indent}  - { lang: eng, url: "https://subs.example.org/${key}.eng.srt" }`,
    ].join('\n');

  await rm(dir, { recursive: true, force: true });
  await mkdir(path.join(dir, 'movies'), { recursive: true });
  await mkdir(path.join(dir, 'series'), { recursive: true });
  await writeFile(
    path.join(dir, 'addon.yaml'),
    [
      'id: org.addongen.bench',
      'version: 1.0.0',
      'name: Benchmark',
      'description: Synthetic content for addon-gen benchmarks',
      'baseUrl: https://bench.example.org/addon/',
      'cache: { maxAge: 3600, staleRevalidate: 14400, staleError: 604800 }',
      ...(configurable
        ? [
            'behaviorHints: { configurable: true }',
            'config:',
            '  - { key: quality, type: select, title: Stream quality, options: [sd, hd], default: hd }',
            '  - { key: extras, type: checkbox, title: Include extras, default: false }',
          ]
        : []),
      'catalogs:',
      `  - { id: movies, type: movie, name: Movies, genres: auto, sort: name${searched} }`,
      '  - { id: newest, type: movie, name: Newest, genres: auto, sort: -released }',
      `  - { id: picks, type: movie, name: Picks, items: listed${configurable ? ', when: { extras: true }' : ''} }`,
      `  - { id: series, type: series, name: Series, genres: auto${searched} }`,
      '  - { id: recent-series, type: series, name: Recent series, sort: -released }',
      '',
    ].join('\n'),
  );

  const perFile = options.itemsPerFile ?? 100;
  let files = 0;
  const flush = async (folder: string, chunk: string[]) => {
    if (chunk.length === 0) return;
    files++;
    await writeFile(path.join(dir, folder, `${String(files).padStart(5, '0')}.yaml`), `${chunk.join('\n')}\n`);
    chunk.length = 0;
  };

  let chunk: string[] = [];
  for (let m = 0; m < options.movies; m++) {
    const id = `bm:m${m}`;
    const picked = next() < 0.1;
    chunk.push(
      [
        `- id: "${id}"`,
        '  type: movie',
        `  name: "${title()} ${m}"`,
        ...(configurable && m % 10 === 9 ? ['  when: { extras: true }'] : []),
        `  poster: "https://img.example.org/m/${m}.jpg"`,
        `  description: "A synthetic film, number ${m}, for measuring addon-gen."`,
        `  released: ${date()}`,
        `  genres: [${genres().join(', ')}]`,
        ...(picked ? ['  catalogs: [movies, newest, picks]'] : []),
        streams(`m/${m}`, '  '),
      ].join('\n'),
    );
    if (chunk.length === perFile) await flush('movies', chunk);
  }
  await flush('movies', chunk);

  // A series with E episodes is about as much YAML as E movies: fewer series per file.
  const seriesPerFile = Math.max(1, Math.round(perFile / Math.max(1, options.episodes)));
  chunk = [];
  for (let s = 0; s < options.series; s++) {
    const videos: string[] = [];
    for (let e = 0; e < options.episodes; e++) {
      const season = 1 + Math.floor(e / 10);
      videos.push(
        [
          `    - season: ${season}`,
          `      episode: ${(e % 10) + 1}`,
          `      title: "Episode ${e + 1}"`,
          `      released: ${date()}`,
          streams(`s/${s}/${e}`, '      '),
        ].join('\n'),
      );
    }
    chunk.push(
      [
        `- id: "bm:s${s}"`,
        '  type: series',
        `  name: "${title()} (series ${s})"`,
        ...(configurable && s % 10 === 9 ? ['  when: { extras: true }'] : []),
        `  poster: "https://img.example.org/s/${s}.jpg"`,
        `  released: ${date()}`,
        `  genres: [${genres().join(', ')}]`,
        '  videos:',
        ...videos,
      ].join('\n'),
    );
    if (chunk.length === seriesPerFile) await flush('series', chunk);
  }
  await flush('series', chunk);
  return { items: options.movies + options.series, files: files + 1 };
}
