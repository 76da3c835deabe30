// Random edits of the benchmark's kind of content (bench/generate.ts), for the tests that compare
// what an edit's build or answers make with a clean build of the edited content.

/** A seeded PRNG, so that a failure can be replayed with the same edits. */
export function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

/** Replaces the match of `pattern` (global) numbered `pick` of those found, if any. */
function replaceOne(text: string, pattern: RegExp, pick: number, by: (match: string) => string): string {
  const matches = [...text.matchAll(pattern)];
  if (matches.length === 0) return text;
  const match = matches[Math.floor(pick * matches.length)]!;
  return text.slice(0, match.index) + by(match[0]) + text.slice(match.index + match[0].length);
}

/**
 * Edits of an item file's text, named: the first seven change an item's fields (two of them its
 * genres); the next three which catalogs list it, or remove it, or add one; the last four its
 * streams and subtitles.
 */
export function contentEdits(next: () => number): [name: string, edit: (text: string) => string][] {
  const names = (text: string) => [...text.matchAll(/name: "([^"]*)"/g)].map((m) => m[1]!);
  return [
    // Moves it in the catalog sorted by name, sometimes to a name another has (ties go by the order read).
    ['rename', (t) => replaceOne(t, /  name: "[^"]*"/g, next(), () => `  name: "${next() < 0.3 ? names(t)[0] : `The ${Math.floor(next() * 1e4)}`}"`)],
    [
      'redate',
      (t) =>
        replaceOne(
          t,
          /\n  released: [\d-]+/g,
          next(),
          () => `\n  released: ${1920 + Math.floor(next() * 100)}-0${1 + Math.floor(next() * 9)}-1${Math.floor(next() * 9)}`,
        ),
    ],
    ['describe', (t) => replaceOne(t, /description: "A synthetic[^"]*"/g, next(), () => `description: "Edited ${Math.floor(next() * 1e6)}"`)],
    [
      'restream',
      (t) => replaceOne(t, /cdn\.example\.org\/[ms]\/[\d/]+\.mp4/g, next(), (m) => m.replace('.mp4', `-v${Math.floor(next() * 100)}.mp4`)),
    ],
    [
      'reorder genres',
      (t) => replaceOne(t, /genres: \[\w+, [\w ]+\]/g, next(), (m) => `genres: [${m.slice(9, -1).split(', ').reverse().join(', ')}]`),
    ],
    ['change a genre', (t) => replaceOne(t, /genres: \[\w+/g, next(), () => `genres: [${next() < 0.5 ? 'Drama' : 'Comedy'}`)],
    ['episode title', (t) => replaceOne(t, /title: "Episode \d+"/g, next(), () => `title: "Renamed ${Math.floor(next() * 100)}"`)],
    ['pick', (t) => replaceOne(t, /\n  type: movie\n/g, next(), (m) => `${m}  catalogs: [movies, newest, picks]\n`)],
    ['remove', (t) => replaceOne(t, /- id: [\s\S]*?(?=\n- id: |\n$)/g, next(), () => '').replace(/^\n/, '')],
    // A copy of an item or title with another id (its first number prefixed with 9: `bm:m912`,
    // `tt91000003:1:3`) and name, before one of them or at the end.
    [
      'add',
      (t) => {
        const items = [...t.matchAll(/- id: [\s\S]*?(?=\n- id: |\n$)/g)];
        if (items.length === 0) return t;
        const n = Math.floor(next() * 1e6);
        const copy = items[Math.floor(next() * items.length)]![0].replace(/- id: "([^"\d]*)\d+/, (_, head: string) => `- id: "${head}9${n}`).replace(
          /\n  name: "[^"]*"/,
          `\n  name: "Added ${n}"`,
        );
        const before = items[Math.floor(next() * (items.length + 1))];
        return before ? `${t.slice(0, before.index)}${copy}\n${t.slice(before.index)}` : `${t.trimEnd()}\n${copy}\n`;
      },
    ],
    // The edits below change what files an item has, or what is warned of: the CLI's edits leave them to the whole build.
    ['one stream fewer', (t) => replaceOne(t, /\n +- \{ infoHash: \w+, fileIdx: 0, name: P2P, description: Torrent \}/g, next(), () => '')],
    [
      'stream file name',
      (t) =>
        replaceOne(
          t,
          /description: 1080p \}/g,
          next(),
          () => `description: 1080p, behaviorHints: { filename: "f${Math.floor(next() * 100)}.mp4" } }`,
        ),
    ],
    ['no subtitles', (t) => replaceOne(t, /\n +subtitles:\n +- \{ lang: eng, url: "[^"]*" \}/g, next(), () => '')],
    ['no streams', (t) => replaceOne(t, /\n  streams:\n(?: {4}- \{[^\n]*\}\n?)+/g, next(), () => '\n')],
  ];
}
