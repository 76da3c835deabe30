// How long `serve --watch` takes to show an edit: from the write of a content file (one movie
// renamed) to the first answer of that movie's meta with the new name, polled every 20 ms. The
// server runs in a process of its own on the content the bench generated.
import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/addon-gen.js', import.meta.url));

export interface WatchReport {
  /** Seconds from the write to the first answer with the new bytes, per edit. */
  seconds: number[];
}

/** Polls `url` until `ready` says its body is what is awaited; the seconds it took. */
async function until(url: string, ready: (status: number, body: string) => boolean, timeoutMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const reply = await fetch(url).then(
      async (r) => ({ status: r.status, body: await r.text() }),
      () => ({ status: 0, body: '' }),
    );
    if (ready(reply.status, reply.body)) return (performance.now() - started) / 1000;
    if (performance.now() - started > timeoutMs) throw new Error(`${url} did not answer as awaited in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Serves `content` with --watch on `port`, renames the first movie `edits` times, and times each. */
export async function measureWatch(content: string, port: number, edits = 3): Promise<WatchReport> {
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [BIN, 'serve', content, '--watch', '--port', String(port)], { stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    await until(`${base}/manifest.json`, (status) => status === 200, 600_000);
    const file = path.join(content, 'movies', (await readdir(path.join(content, 'movies'))).sort()[0]!);
    const text = await readFile(file, 'utf8');
    const first = /- id: "?([^"\n]+)"?\n\s+type: movie\n\s+name: "([^"]*)"/.exec(text);
    if (!first) throw new Error(`no movie found at the start of ${file}`);
    const [, id, name] = first;
    const meta = `${base}/meta/movie/${encodeURIComponent(id!)}.json`;
    const seconds: number[] = [];
    for (let edit = 1; edit <= edits; edit++) {
      const renamed = `Edited ${edit} ${name}`;
      await writeFile(file, text.replace(`name: "${name}"`, `name: "${renamed}"`));
      seconds.push(await until(meta, (status, body) => status === 200 && body.includes(renamed), 600_000));
    }
    await writeFile(file, text);
    return { seconds };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  }
}
