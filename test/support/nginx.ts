// Real nginx for tests, configured like GitHub Pages serving a project site under a sub-path
// (`https://user.github.io/repo/`): on 127.0.0.1 only, in the foreground as a child process, with
// its configuration, pid file, logs and temporary folders all in a private temporary folder.
//
// What it copies from GitHub Pages: the site under `/repo/`, percent-encoded paths decoded before
// the file lookup, `Access-Control-Allow-Origin: *` and `Cache-Control: max-age=600` on every
// answer (404s too), `.json` as `application/json; charset=utf-8`, `index.html` for a folder, a
// folder without its slash redirected to it (301), and the site's own `404.html` with status 404
// for a missing file (and for a folder without an index, which GitHub Pages also answers with 404).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sleep, startProcessGroup } from './process-group.js';
import { freePort } from './wrangler.js';

export interface Nginx {
  /** `http://127.0.0.1:PORT/repo/` (the prefix given), ending in `/`. */
  url: string;
  port: number;
  /**
   * The path (with query) of every request answered so far, in order, exactly as it was sent
   * (still percent-encoded), read from the access log.
   */
  requests(): Promise<string[]>;
  /** Stops nginx (master and workers) and removes its temporary folder. */
  close(): Promise<void>;
}

export interface NginxOptions {
  /** The site's path, starting and ending in `/`; default `/repo/`. */
  prefix?: string;
  /** Port to listen on; default a free one. Pick it first with `freePort()` when the build needs the URL. */
  port?: number;
  /** How long to wait for the first HTTP answer; default 20 s. */
  timeoutMs?: number;
}

/** The nginx binary: Debian's, else the first `nginx` on PATH. */
export function nginxBinary(): string {
  const candidates = [
    '/usr/sbin/nginx',
    ...(process.env.PATH ?? '')
      .split(path.delimiter)
      .filter(Boolean)
      .map((d) => path.join(d, 'nginx')),
  ];
  const found = candidates.find((file) => existsSync(file));
  if (!found) {
    throw new Error(
      'nginx is not installed (no /usr/sbin/nginx and no nginx on PATH): install the Debian package ' +
        '`nginx` (apt-get install nginx; .ci/run does) to run the tests that serve the addon from nginx',
    );
  }
  return found;
}

/** The types GitHub Pages gives the files an addon tree can hold (its list comes from mime-db). */
const TYPES: Record<string, string> = {
  'text/html': 'html htm',
  'text/css': 'css',
  'text/plain': 'txt',
  'text/xml': 'xml',
  'text/vtt': 'vtt',
  'application/javascript': 'js mjs',
  'application/json': 'json map',
  'application/x-subrip': 'srt',
  'image/png': 'png',
  'image/jpeg': 'jpg jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/svg+xml': 'svg',
  'image/x-icon': 'ico',
  'font/woff': 'woff',
  'font/woff2': 'woff2',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
};

/** A string for the configuration file, refused when nginx would read it as something else. */
function quoted(value: string): string {
  // `$` starts a variable in `alias`; quotes, backslashes and control characters end the string.
  if (/["\\$\x00-\x1f]/.test(value)) throw new Error(`nginx test harness: unsupported character in path ${JSON.stringify(value)}`);
  return `"${value}"`;
}

function config(root: string, home: string, prefix: string, port: number): string {
  const file = (name: string) => quoted(path.join(home, name));
  const types = Object.entries(TYPES)
    .map(([type, extensions]) => `    ${type} ${extensions};`)
    .join('\n');
  return `# Written by test/support/nginx.ts.
daemon off;
master_process on;
worker_processes 1;
${process.getuid?.() === 0 ? '# Workers as root too: the tree is in a mkdtemp folder (mode 700) that nobody else may read.\nuser root;\n' : ''}pid ${file('nginx.pid')};
error_log ${file('error.log')} info;

events {
  worker_connections 256;
}

http {
  types {
${types}
  }
  default_type application/octet-stream;
  charset utf-8;
  # "; charset=utf-8" on these types (text/html is always one of them).
  charset_types text/css text/plain text/xml text/vtt application/javascript application/json application/x-subrip image/svg+xml;

  log_format paths escape=none '$request_uri';
  access_log ${file('access.log')} paths;

  client_body_temp_path ${file('client_body')};
  proxy_temp_path ${file('proxy')};
  fastcgi_temp_path ${file('fastcgi')};
  uwsgi_temp_path ${file('uwsgi')};
  scgi_temp_path ${file('scgi')};

  server_tokens off;
  sendfile on;
  keepalive_timeout 5s;

  server {
    listen 127.0.0.1:${port};
    server_name 127.0.0.1;
    # Nothing outside the site: every other path is a 404 (with the site's 404 page).
    root ${file('empty')};

    # On every answer, errors and redirects included, as GitHub Pages does. No location below may
    # have an add_header of its own (it would replace these).
    add_header Access-Control-Allow-Origin "*" always;
    add_header Cache-Control "max-age=600" always;

    index index.html;
    error_page 404 ${prefix}404.html;
    # A folder without index.html: nginx says 403, GitHub Pages 404.
    error_page 403 =404 ${prefix}404.html;

${
  prefix === '/'
    ? ''
    : `    location = ${prefix.slice(0, -1)} {
      return 301 ${prefix};
    }

`
}    location ${prefix} {
      alias ${quoted(`${path.resolve(root)}/`)};
    }
  }
}
`;
}

/** Serves `root` with nginx at `http://127.0.0.1:PORT<prefix>` and resolves once it answers HTTP. */
export async function startNginx(root: string, options: NginxOptions = {}): Promise<Nginx> {
  const prefix = options.prefix ?? '/repo/';
  if (!/^\/([A-Za-z0-9._~-]+\/)*$/.test(prefix)) throw new Error(`nginx test harness: prefix must be like /repo/, not ${prefix}`);
  const timeoutMs = options.timeoutMs ?? 20_000;
  const binary = nginxBinary();
  if (!(await stat(root).catch(() => undefined))?.isDirectory()) throw new Error(`nginx test harness: ${root} is not a folder`);
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}${prefix}`;

  const home = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-nginx-'));
  const configFile = path.join(home, 'nginx.conf');
  const errorLog = path.join(home, 'error.log');
  const accessLog = path.join(home, 'access.log');
  await writeFile(configFile, config(root, home, prefix, port));
  await writeFile(accessLog, '');
  await mkdir(path.join(home, 'empty'));

  // -e: the error log before the configuration is read (else /var/log/nginx/error.log);
  // -p: the prefix for relative paths; -c: our configuration only. The group is the master and its workers.
  const server = startProcessGroup(binary, ['-e', errorLog, '-p', `${home}/`, '-c', configFile], { home, keep: 20_000 });
  const close = () => server.close();

  const diagnostics = async () => {
    const log = await readFile(errorLog, 'utf8').catch(() => '');
    const wanted = log
      .split('\n')
      .filter((line) => /\[(emerg|alert|crit|error|warn)\]/.test(line))
      .join('\n');
    return `nginx output:\n${server.output().trim() || '(none)'}\nerror log:\n${(wanted || log).trim().slice(-10_000) || '(empty)'}`;
  };

  const probePath = `/addon-gen-nginx-ready-${process.pid}-${port}-${Date.now()}`;
  const probe = `http://127.0.0.1:${port}${probePath}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.exitStatus() !== undefined) {
      const details = await diagnostics();
      await close();
      throw new Error(`nginx exited (${server.exitStatus()}) before answering on ${url}\n${details}`);
    }
    try {
      // Another server on the port (nginx failing to bind and about to exit) would answer too:
      // ready when the probe is in this nginx's own access log.
      await (await fetch(probe, { signal: AbortSignal.timeout(2_000), redirect: 'manual' })).arrayBuffer();
      await settle(accessLog);
      if ((await readFile(accessLog, 'utf8')).includes(probePath)) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      const details = await diagnostics();
      await close();
      throw new Error(`nginx did not answer on ${url} within ${timeoutMs / 1000} s\n${details}`);
    }
    await sleep(50);
  }
  // Not a request of the caller's: the log starts after the readiness probe.
  await writeFile(accessLog, '');

  const requests = async () => {
    await settle(accessLog);
    const log = await readFile(accessLog, 'utf8');
    return log.split('\n').filter((line) => line !== '');
  };
  return { url, port, requests, close };
}

/**
 * nginx writes an access log line after it has sent the answer, so a client can read the answer
 * before the line is there: wait until the file has not grown for 50 ms.
 */
async function settle(file: string): Promise<void> {
  let size = -1;
  for (let i = 0; i < 40; i++) {
    const now = (await stat(file).catch(() => undefined))?.size ?? 0;
    if (now === size) return;
    size = now;
    await sleep(50);
  }
}
