// The real Cloudflare Pages runtime for tests: `wrangler pages dev DIR` (workerd plus the Pages
// asset server, which reads `_headers`, `_redirects` and `404.html` as production does), on
// 127.0.0.1 only, offline, with every file wrangler writes kept in a temporary folder.
import { mkdtemp } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep, startProcessGroup } from './process-group.js';

const WRANGLER = fileURLToPath(new URL('../../node_modules/.bin/wrangler', import.meta.url));

/**
 * The date the issue asks for. It works offline with the wrangler we can run (4.86.0: 4.87 and
 * later need Node 22), whose workerd 1.20260426.1 accepts dates up to 2026-05-03, "the newest date
 * supported by this server binary"; a later one stops it at start-up ("This Worker requires
 * compatibility date ..."). miniflare also refuses a date after the machine's own clock
 * ("Compatibility date ... is in the future"), so a machine whose clock is before 2026-05-01
 * would need an earlier date here (workerd's own, 2026-04-26, is the safe fallback).
 */
export const COMPATIBILITY_DATE = '2026-05-01';

export interface PagesDev {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  port: number;
  /** What wrangler printed so far (stdout and stderr, interleaved, colourless). */
  output(): string;
  /** Stops wrangler and its workerd children (the whole process group) and removes its files. */
  close(): Promise<void>;
}

export interface PagesDevOptions {
  /** Port to listen on; default a free one. Pick it first with `freePort()` when the build needs the URL. */
  port?: number;
  /** How long to wait for the first HTTP answer; default 60 s. */
  timeoutMs?: number;
}

/** Ports this process has handed out; never handed out twice (a closed port can come back from the OS). */
const handedOut = new Set<number>();

/** `count` distinct ports free on 127.0.0.1 right now: bound to port 0 together, read, closed. */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  const ports: number[] = [];
  try {
    while (ports.length < count) {
      if (servers.length > count + 100) throw new Error('no free ports on 127.0.0.1');
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
      const { port } = server.address() as AddressInfo;
      if (!handedOut.has(port)) ports.push(port);
    }
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
  for (const port of ports) handedOut.add(port);
  return ports;
}

export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}

/**
 * The environment wrangler 4.86 reads to stay offline, quiet and non-interactive. Inherited
 * `CLOUDFLARE_*`, `WRANGLER_*` and `CF_*` variables are dropped so that nothing of the
 * developer's own setup (accounts, log levels, config paths) leaks into the test.
 */
function wranglerEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(CLOUDFLARE_|WRANGLER_|CF_)/.test(key)) env[key] = value;
  }
  return {
    ...env,
    // Non-interactive: no prompts (error reports, login), no hotkeys.
    CI: 'true',
    // Telemetry off; the one-off "device id" file still goes into XDG_CONFIG_HOME below.
    WRANGLER_SEND_METRICS: 'false',
    // No "report this error to Cloudflare?" (Sentry) on failures.
    WRANGLER_SEND_ERROR_REPORTS: 'false',
    // The banner is what asks the npm registry for a newer wrangler (update-check, 3 s grace).
    WRANGLER_HIDE_BANNER: 'true',
    // miniflare would fetch the `Request.cf` object from workers.cloudflare.com and warn offline.
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    // No `.env` / `.dev.vars` lookups in the working folder.
    CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV: 'false',
    // wrangler keeps `.wrangler/` (metrics device id, logs, dev registry) under XDG_CONFIG_HOME.
    XDG_CONFIG_HOME: path.join(home, 'config'),
    NO_COLOR: '1',
    FORCE_COLOR: '0',
  };
}

/** Serves `dir` with `wrangler pages dev` on 127.0.0.1 and resolves once it answers HTTP. */
export async function startPagesDev(dir: string, options: PagesDevOptions = {}): Promise<PagesDev> {
  // The inspector's port is found free here and bound by workerd a moment later: a server of
  // another test file, listening on port 0 meanwhile, can take it (seen in CI). Such a start is
  // tried again, with another inspector port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startPagesDevOnce(dir, options);
    } catch (error) {
      if (attempt === 3 || !(error instanceof Error) || !error.message.includes('Address already in use')) throw error;
    }
  }
}

async function startPagesDevOnce(dir: string, options: PagesDevOptions): Promise<PagesDev> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const port = options.port ?? (await freePort());
  const inspectorPort = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  // wrangler writes `.wrangler/state` and `.wrangler/tmp` into its working folder: a private one.
  const home = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-wrangler-'));

  const server = startProcessGroup(
    WRANGLER,
    [
      'pages',
      'dev',
      path.resolve(dir),
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      // The devtools inspector would take 9229 otherwise (and collide with a second run).
      '--inspector-port',
      String(inspectorPort),
      '--compatibility-date',
      COMPATIBILITY_DATE,
    ],
    { home, env: wranglerEnv(home), keep: 50_000 },
  );
  const close = () => server.close();

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.exitStatus() !== undefined) {
      await close();
      throw new Error(`wrangler pages dev exited (${server.exitStatus()}) before answering on ${url}:\n${clean(server.output())}`);
    }
    try {
      await fetch(url, { signal: AbortSignal.timeout(2_000) });
      break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await close();
      throw new Error(`wrangler pages dev did not answer on ${url} within ${timeoutMs / 1000} s:\n${clean(server.output())}`);
    }
    await sleep(200);
  }
  return { url, port, output: () => clean(server.output()), close };
}

/** Drops terminal colour codes, should a library ignore NO_COLOR. */
function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}
