// An S3 API for tests: s3rver (a Koa server that implements S3's REST API over a folder), run in
// this process on 127.0.0.1, filled by the build's own `upload.sh` through the real AWS CLI, and
// read back over plain anonymous HTTP the way the Stremio client reads an addon.
//
// Order of use: `startS3()` first (the endpoint is needed for the addon's base URL), then build
// with `bucketUrl(bucket, prefix)` as base URL, then `createBucket` with the build's `cors.json`
// and `upload` with its `<out>-s3` folder.
//
// Where s3rver differs from real S3, seen from here:
// - a literal `+` in a path is read as `+` (real S3 reads it as a space; `%2B` is `+` on both);
// - CORS headers on every answer to a GET, with or without `Origin` (real S3 adds them only when
//   the request has an `Origin` that a rule matches), with `Access-Control-Allow-Credentials: true`
//   even for the `*` origin rule, and `Access-Control-Max-Age` outside preflights;
// - no `aws-chunked` bodies: a CLI that sends CRC32 checksum trailers (botocore 1.36 and later,
//   by default) would have the chunk framing stored as the object, hence the `when_required`
//   settings below;
// - no permissions: every object is readable anonymously, with no bucket policy or ACL needed.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  resetOnClose?: boolean;
  vhostBuckets?: boolean;
}) => S3rverInstance;

const require = createRequire(import.meta.url);

/** The access key and secret s3rver's only account accepts. */
const ACCESS_KEY = 'S3RVER';
const SECRET_KEY = 'S3RVER';

export interface S3 {
  /** `http://127.0.0.1:PORT` (no trailing slash): what `--endpoint-url` and `ENDPOINT_URL` take. */
  endpoint: string;
  port: number;
  /** Path-style URL of a bucket (and key prefix), ending in `/`: `http://127.0.0.1:PORT/bucket/prefix/`. */
  bucketUrl(bucket: string, prefix?: string): string;
  /** `aws s3api create-bucket`, then `aws s3api put-bucket-cors` with the given file (the build's `cors.json`). */
  createBucket(bucket: string, corsJsonFile: string): Promise<void>;
  /** Runs `sh <s3Dir>/upload.sh` with BUCKET, PREFIX and ENDPOINT_URL set; resolves with its output. */
  upload(s3Dir: string, bucket: string, prefix?: string): Promise<string>;
  /** Runs the real AWS CLI against this server with the test environment (`aws --endpoint-url … <args>`). */
  aws(...args: string[]): Promise<string>;
  /** Stops the server and removes its data and the CLI's configuration. */
  close(): Promise<void>;
}

/** Fails with a clear message when the AWS CLI is not on PATH (tests must fail, not skip). */
function checkAwsCli(env: NodeJS.ProcessEnv): void {
  const found = (env.PATH ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .some((dir) => existsSync(path.join(dir, 'aws')));
  if (!found) throw new Error(AWS_MISSING);
}

const AWS_MISSING =
  'the AWS CLI (`aws`) is not installed: install the Debian package `awscli` (apt-get install awscli; .ci/run does) to run the S3 tests';

/**
 * The environment of every `aws` run: dummy credentials, a region, private config and credential
 * files (nothing of the developer's own `~/.aws` or `AWS_*` variables), path-style addressing,
 * and checksums only where an operation requires them (no aws-chunked trailers for s3rver).
 */
function awsEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^AWS_/.test(key)) env[key] = value;
  }
  return {
    ...env,
    AWS_ACCESS_KEY_ID: ACCESS_KEY,
    AWS_SECRET_ACCESS_KEY: SECRET_KEY,
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_REGION: 'us-east-1',
    AWS_CONFIG_FILE: path.join(home, 'config'),
    AWS_SHARED_CREDENTIALS_FILE: path.join(home, 'credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_PAGER: '',
    AWS_CLI_AUTO_PROMPT: 'off',
    AWS_REQUEST_CHECKSUM_CALCULATION: 'when_required',
    AWS_RESPONSE_CHECKSUM_VALIDATION: 'when_required',
    // The AWS CLI v2 checks for a newer version and may print hints; neither here.
    AWS_CLI_DISABLE_VERSION_CHECK: 'true',
    PYTHONWARNINGS: 'ignore',
  };
}

const AWS_CONFIG = `[default]
region = us-east-1
output = json
request_checksum_calculation = when_required
response_checksum_validation = when_required
s3 =
  addressing_style = path
`;

/** Starts s3rver on a free port of 127.0.0.1 with its data in a new temporary folder. */
export async function startS3(): Promise<S3> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'addon-gen-s3-'));
  const env = awsEnv(home);
  try {
    await writeFile(path.join(home, 'config'), AWS_CONFIG);
    await writeFile(path.join(home, 'credentials'), '');
    checkAwsCli(env);
  } catch (error) {
    await rm(home, { recursive: true, force: true });
    throw error;
  }

  const S3rver = require('s3rver') as S3rverClass;
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    // Also Koa's own `silent`: no stack traces on the console for the 404s tests ask for.
    silent: true,
    directory: path.join(home, 'data'),
    // Buckets by path only: no `bucket.localhost` host names.
    vhostBuckets: false,
  });
  let address: AddressInfo;
  try {
    address = await server.run();
  } catch (error) {
    await rm(home, { recursive: true, force: true });
    throw new Error(`s3rver did not start: ${(error as Error).message}`);
  }
  const endpoint = `http://127.0.0.1:${address.port}`;

  const aws = (...args: string[]) => run('aws', ['--endpoint-url', endpoint, ...args], env);

  let closed = false;
  return {
    endpoint,
    port: address.port,
    bucketUrl(bucket, prefix = '') {
      const keyPrefix = prefix.split('/').map(encodeURIComponent).join('/');
      return `${endpoint}/${encodeURIComponent(bucket)}/${keyPrefix}`.replace(/\/?$/, '/');
    },
    async createBucket(bucket, corsJsonFile) {
      await aws('s3api', 'create-bucket', '--bucket', bucket);
      await aws('s3api', 'put-bucket-cors', '--bucket', bucket, '--cors-configuration', `file://${path.resolve(corsJsonFile)}`);
    },
    async upload(s3Dir, bucket, prefix) {
      const script = path.join(s3Dir, 'upload.sh');
      if (!(await stat(script).catch(() => undefined))?.isFile()) throw new Error(`no upload script at ${script}`);
      return run('sh', [script], { ...env, BUCKET: bucket, PREFIX: prefix ?? '', ENDPOINT_URL: endpoint });
    },
    aws,
    async close() {
      if (closed) return;
      closed = true;
      await server.close().catch(() => undefined);
      await rm(home, { recursive: true, force: true });
    },
  };
}

/**
 * Runs a command without blocking this process (the S3 server answering it runs here too) and
 * resolves with its stdout; rejects with its stderr and stdout when it fails.
 */
function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(error.code === 'ENOENT' && command === 'aws' ? AWS_MISSING : `${command} ${args.join(' ')}: ${error.message}`)),
    );
    child.once('close', (code, signal) => {
      if (code === 0) resolve(stdout);
      else {
        reject(
          new Error(
            `${command} ${args.join(' ')} failed (${code ?? signal}):\n${stderr.trim() || '(no stderr)'}` +
              (stdout.trim() ? `\nstdout:\n${stdout.trim().slice(-5_000)}` : ''),
          ),
        );
      }
    });
  });
}
