// `node --expose-gc --import tsx bench/scanners.ts [--json]`, after `npx tsc -p tsconfig.build.json`
// (the first step of `npm run bench`): every scan of content text, on 1 MiB and on 16 MiB of each
// repeated token that a scanner treats specially. Prints, per token and scanner, the time per MiB
// at 16 MiB over that at 1 MiB: near 1 when the scan is linear, 16 when it is quadratic. The
// times themselves vary with the machine.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DiagnosticList } from '../src/diagnostics/index.js';
import { escapeHtml, jsonForScript, pageValues } from '../src/plan/page.js';
import { contentSchemas, fileNameProblem, isAbsoluteUrl, toRfc3339 } from '../src/validate/schema.js';
import { expandText, expandVariables, needsWalk, secretPolicy, secretsIn } from '../src/validate/secrets.js';

const MiB = 1024 * 1024;
const FLOOR_MS_PER_MIB = 1;

/**
 * The repeated tokens: what the variable scanner looks for (`${`, `$${`, a `${` without its `}`),
 * what reading escapes looks for (`%`, `+`, YAML's backslash escapes, cut short), what the schema's
 * patterns look for (digits, dots, dashes, colons, spaces for dates, versions, ids and URLs), what
 * escaping HTML and JSON replaces, and line ends.
 */
export const TOKENS = [
  '${',
  '$${',
  '${A',
  '${A}',
  '${}',
  '$',
  '{',
  '}',
  '%',
  '%2',
  '%25',
  '%%41',
  '+',
  '\\',
  '\\x',
  '\\x4',
  '\\u00',
  '\\U',
  '\\\n',
  '\r',
  '\n',
  ' ',
  '0',
  '1-',
  'a.',
  'a:',
  '-',
  '<',
  '&',
  '"',
];

export interface ScannerRow {
  token: string;
  scanner: string;
  /**
   * Milliseconds per MiB at 1 MiB (the best of three), at 4 and at 16 MiB (the best of two; for
   * a file, of two at 1 MiB and one at 4 and 16 MiB).
   */
  msPerMiB1: number;
  msPerMiB4: number;
  msPerMiB16: number;
  /**
   * msPerMiB16 / msPerMiB1, each at least FLOOR_MS_PER_MIB: near 1 for a linear scan, 16 for a
   * quadratic one. Faster scans run at the speed of memory, and 16 MiB do not fit in a cache
   * where 1 MiB does: `ratio16to4`, where neither fits, tells such a scan from a quadratic one
   * (which gives 4 there).
   */
  ratio: number;
  ratio16to4: number;
}

const ENV = { A: 'a', API_KEY: 'sk-live-0123456789abcdef' };

/** Each scanner of content text in src/, as a function of one text. */
function scanners(): Record<string, (text: string) => unknown> {
  const policy = secretPolicy(ENV);
  const schemas = contentSchemas(() => ({ message: 'not a file', params: {} }));
  const locator = Object.assign(() => ({ file: 'a.yaml', line: 1, column: 1 }), { file: 'a.yaml' });
  return {
    'secrets: expandText': (text) => expandText(text, ENV),
    'secrets: needsWalk': (text) => needsWalk(text, policy),
    'secrets: secretsIn': (text) => secretsIn(text, policy),
    'secrets: expandVariables': (text) => expandVariables({ description: text, [text]: 'key' }, ENV, policy, locator, new DiagnosticList()),
    'schema: item fields': (text) =>
      schemas.item.safeParse({
        id: text,
        type: text,
        name: text,
        released: text,
        poster: text,
        genres: [text],
        streams: [{ url: text, externalUrl: text, infoHash: text }],
        subtitles: [{ lang: text, url: text }],
      }),
    'schema: addon fields': (text) => schemas.addon.safeParse({ id: text, version: text, name: text, baseUrl: text, secrets: [text] }),
    'schema: helpers': (text) => [isAbsoluteUrl(text), fileNameProblem(text), fileNameProblem(text, false), toRfc3339(text)],
    'page: escaping': (text) => [escapeHtml(text), jsonForScript({ text })],
    'page: values': (text) =>
      pageValues(
        'install',
        { id: 'org.example.x', version: '1.0.0', name: text, description: text, types: [text], catalogs: [], resources: [] },
        undefined,
      ),
  };
}

function bestOf(runs: number, fn: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    // With --expose-gc: no run pays for the garbage of the one before.
    globalThis.gc?.();
    const started = performance.now();
    fn();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

function repeated(token: string, bytes: number): string {
  return token.repeat(Math.ceil(bytes / token.length)).slice(0, bytes);
}

/**
 * Load and validate of a real content folder whose item's description is `text`, by the compiled
 * build (lib/): its parse threads run compiled code.
 */
async function validateFile(dir: string, text: string): Promise<void> {
  const { build }: typeof import('../src/build/index.js') = await import(new URL('../lib/build/index.js', import.meta.url).href);
  // A literal block scalar: the text is the value as it is, whatever it holds.
  const lines = text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
  await writeFile(path.join(dir, 'a.yaml'), `id: a\ntype: movie\nname: A\ndescription: |-\n${lines}\n`);
  await build({ contentDir: dir, env: ENV, maxFileSize: 64 * MiB });
}

export async function measureScanners(tokens: readonly string[] = TOKENS): Promise<ScannerRow[]> {
  const rows: ScannerRow[] = [];
  const dir = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-scanners-'));
  await writeFile(path.join(dir, 'addon.yaml'), 'id: org.example.x\nversion: 1.0.0\nname: X\n');
  try {
    for (const token of tokens) {
      const texts = [repeated(token, MiB), repeated(token, 4 * MiB), repeated(token, 16 * MiB)] as const;
      const row = (scanner: string, [ms1, ms4, ms16]: number[]) => {
        const [perMiB1, perMiB4, perMiB16] = [ms1!, ms4! / 4, ms16! / 16];
        const floor = (ms: number) => Math.max(ms, FLOOR_MS_PER_MIB);
        rows.push({
          token,
          scanner,
          msPerMiB1: perMiB1,
          msPerMiB4: perMiB4,
          msPerMiB16: perMiB16,
          ratio: floor(perMiB16) / floor(perMiB1),
          ratio16to4: floor(perMiB16) / floor(perMiB4),
        });
      };
      for (const [scanner, fn] of Object.entries(scanners()))
        row(
          scanner,
          texts.map((text, i) => bestOf(i === 0 ? 3 : 2, () => fn(text))),
        );
      // Async: timed by hand, as above.
      const timedFile = async (text: string, runs: number) => {
        let best = Infinity;
        for (let i = 0; i < runs; i++) {
          globalThis.gc?.();
          const started = performance.now();
          await validateFile(dir, text);
          best = Math.min(best, performance.now() - started);
        }
        return best;
      };
      row('load + validate (a file)', [await timedFile(texts[0], 2), await timedFile(texts[1], 1), await timedFile(texts[2], 1)]);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

function printable(token: string): string {
  return JSON.stringify(token);
}

async function main() {
  const rows = await measureScanners();
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(rows));
    return;
  }
  console.log('token      scanner                       ms/MiB at 1 MiB   at 4 MiB   at 16 MiB   16/1   16/4');
  for (const r of rows) {
    const figures = [r.msPerMiB1, r.msPerMiB4, r.msPerMiB16].map((ms, i) => ms.toFixed(2).padStart([15, 10, 11][i]!));
    console.log(
      `${printable(r.token).padEnd(10)} ${r.scanner.padEnd(29)} ${figures.join(' ')} ${r.ratio.toFixed(2).padStart(6)} ${r.ratio16to4.toFixed(2).padStart(6)}`,
    );
  }
  const worst = (key: 'ratio' | 'ratio16to4') => rows.reduce((a, b) => (b[key] > a[key] ? b : a));
  for (const key of ['ratio', 'ratio16to4'] as const) {
    console.log(`worst ${key === 'ratio' ? '16/1' : '16/4'}: ${worst(key)[key].toFixed(2)} (${printable(worst(key).token)}, ${worst(key).scanner})`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
