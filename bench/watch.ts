// How long `serve --watch` takes to show an edit: from the write of a content file (one movie
// renamed) to the first answer of that movie's meta with the new name, polled every 20 ms; to the
// catalog pages that list it answered early (the server's "catalog page" line); and to the end of
// its rebuild (the server's "Rebuilt" line). Then pairs of saves, the second soon after the first
// is shown, timed from the second's write to its new answer. Last, a film added (a sequel of the
// first, at the end of its file), timed to its meta's first answer and to its rebuild's end, then
// removed again, timed to its meta's first 404 and to that rebuild's end. The
// server runs in a process of its own on the content the bench generated, and each edit is made
// once it is idle: after the first build it links the other tree's files in the background.
import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const BIN = fileURLToPath(new URL('../bin/addon-gen.js', import.meta.url));

export interface WatchReport {
  /** Seconds from the write to the first answer with the new bytes, per edit. */
  seconds: number[];
  /** Seconds from the write to the catalog pages answered early, per edit; null when they came with the rebuild. */
  pages: (number | null)[];
  /** Seconds from the write to the end of the rebuild, per edit. */
  rebuilt: number[];
  /**
   * Seconds from a second write, made SOON_AFTER_MS after the first's new answer while its
   * rebuild goes on, to the second's new answer; per pair.
   */
  soonAfter: number[];
  /** Seconds from the write of a film added (a sequel of the first, after the last) to its meta's first answer, per edit. */
  added: number[];
  /** Seconds from that write to the end of its rebuild, per edit. */
  addedRebuilt: number[];
  /** Seconds from the write that removes that film again to its meta's first 404, per edit. */
  removed: number[];
  /** Seconds from that write to the end of its rebuild, per edit. */
  removedRebuilt: number[];
}

/** How long after an edit is shown the next is saved, in `soonAfter`: within its rebuild's check and plan on the large content. */
const SOON_AFTER_MS = [0, 300, 1000];

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
  const child = spawn(process.execPath, [BIN, 'serve', content, '--watch', '--port', String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  // When each rebuild ended, and when catalog pages were answered early, as the server printed it.
  const rebuilds: number[] = [];
  const early: number[] = [];
  let rest = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      if (line.startsWith('Rebuilt in')) rebuilds.push(performance.now());
      if (/^Serving the edit's .*catalog page/.test(line)) early.push(performance.now());
    }
  });
  try {
    await until(`${base}/manifest.json`, (status) => status === 200, 600_000);
    await idle(child.pid!);
    const file = path.join(content, 'movies', (await readdir(path.join(content, 'movies'))).sort()[0]!);
    const text = await readFile(file, 'utf8');
    const first = /- id: "?([^"\n]+)"?\n\s+type: movie\n\s+name: "([^"]*)"/.exec(text);
    if (!first) throw new Error(`no movie found at the start of ${file}`);
    const [, id, name] = first;
    const meta = `${base}/meta/movie/${encodeURIComponent(id!)}.json`;
    const seconds: number[] = [];
    const rebuilt: number[] = [];
    const pages: (number | null)[] = [];
    for (let edit = 1; edit <= edits; edit++) {
      const renamed = `Edited ${edit} ${name}`;
      const saved = performance.now();
      await writeFile(file, text.replace(`name: "${name}"`, `name: "${renamed}"`));
      seconds.push(await until(meta, (status, body) => status === 200 && body.includes(renamed), 600_000));
      while (!rebuilds.some((at) => at > saved)) await sleep(20);
      rebuilt.push((rebuilds.find((at) => at > saved)! - saved) / 1000);
      const answered = early.find((at) => at > saved);
      pages.push(answered === undefined ? null : (answered - saved) / 1000);
      await idle(child.pid!);
    }
    // A save soon after another, as an editor's autosave makes them: the rebuild of the first,
    // stale, stops, or the second waits for it to end.
    const soonAfter: number[] = [];
    for (const [pair, delay] of SOON_AFTER_MS.entries()) {
      const [first, second] = ['a', 'b'].map((which) => `Edited soon ${pair}${which} ${name}`);
      await writeFile(file, text.replace(`name: "${name}"`, `name: "${first}"`));
      await until(meta, (status, body) => status === 200 && body.includes(first!), 600_000);
      await sleep(delay);
      const saved = performance.now();
      await writeFile(file, text.replace(`name: "${name}"`, `name: "${second}"`));
      await until(meta, (status, body) => status === 200 && body.includes(second!), 600_000);
      soonAfter.push((performance.now() - saved) / 1000);
      await idle(child.pid!);
    }
    // A film added, then removed again once its rebuild ended; each save made with the server idle.
    const [firstItem] = /^- id: [\s\S]*?(?=\n- id: )/.exec(text) ?? [];
    if (!firstItem) throw new Error(`no item block found at the start of ${file}`);
    const saveAndRebuild = async (body: string) => {
      const saved = performance.now();
      await writeFile(file, body);
      while (!rebuilds.some((at) => at > saved)) await sleep(20);
      await idle(child.pid!);
    };
    await saveAndRebuild(text);
    const [added, addedRebuilt, removed, removedRebuilt]: [number[], number[], number[], number[]] = [[], [], [], []];
    // Saves `body`; the seconds to the sequel's meta answering `status`, and to the end of the rebuild.
    const timedSave = async (body: string, sequelMeta: string, status: number) => {
      const saved = performance.now();
      await writeFile(file, body);
      const shown = await until(sequelMeta, (answered) => answered === status, 600_000);
      while (!rebuilds.some((at) => at > saved)) await sleep(20);
      const rebuilt = (rebuilds.find((at) => at > saved)! - saved) / 1000;
      await idle(child.pid!);
      return [shown, rebuilt] as const;
    };
    for (let edit = 1; edit <= edits; edit++) {
      const sequelId = `${id!}-sequel-${edit}`;
      const sequel = firstItem.replace(/^- id: .*/, `- id: "${sequelId}"`).replace(`name: "${name}"`, `name: "${name} II"`);
      const sequelMeta = `${base}/meta/movie/${encodeURIComponent(sequelId)}.json`;
      const [shown, rebuilt] = await timedSave(`${text.trimEnd()}\n${sequel}\n`, sequelMeta, 200);
      added.push(shown);
      addedRebuilt.push(rebuilt);
      const [gone, rebuiltAgain] = await timedSave(text, sequelMeta, 404);
      removed.push(gone);
      removedRebuilt.push(rebuiltAgain);
    }
    return { seconds, pages, rebuilt, soonAfter, added, addedRebuilt, removed, removedRebuilt };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  }
}

/** Waits until the process `pid` has used no CPU time for a second (Linux: /proc/PID/stat). */
async function idle(pid: number, timeoutMs = 600_000): Promise<void> {
  const cpu = async () => {
    // utime and stime, after the command name in parentheses (which may hold spaces).
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  };
  const started = performance.now();
  let last = await cpu();
  for (let quiet = 0; quiet < 4;) {
    if (performance.now() - started > timeoutMs) throw new Error(`the server was still busy after ${timeoutMs} ms`);
    await sleep(250);
    const now = await cpu();
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
}
