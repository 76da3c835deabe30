// A server the tests start as a process group of its own (nginx and its workers, wrangler and
// workerd): its output kept, its exit noticed, and the whole group stopped on close() or when the
// test process ends without it.
import { spawn, type SpawnOptions } from 'node:child_process';
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';

export interface ProcessGroup {
  /** What it printed so far (stdout and stderr interleaved, the last `keep` characters). */
  output(): string;
  /** Its exit code or signal once it has exited, else undefined. */
  exitStatus(): number | string | null | undefined;
  /** SIGTERM, then SIGKILL for whatever of the group is left after 5 s; removes `home`. Once. */
  close(): Promise<void>;
}

export function startProcessGroup(
  command: string,
  args: readonly string[],
  options: { home: string; env?: SpawnOptions['env']; keep: number },
): ProcessGroup {
  let output = '';
  const child = spawn(command, args, { cwd: options.home, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-options.keep);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  // A server nobody closed must not keep the test process alive; the exit hook below kills it.
  child.unref();
  for (const stream of [child.stdout, child.stderr] as unknown as { unref?: () => void }[]) stream.unref?.();
  const exited = new Promise<number | string | null>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal));
    child.once('error', (error) => {
      output += `\n${String(error)}`;
      resolve('spawn error');
    });
  });
  let exitStatus: number | string | null | undefined;
  void exited.then((status) => (exitStatus = status));

  const killGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  // Should the test process end without close() (a crash), take the group with it.
  const onExit = () => {
    killGroup('SIGKILL');
    rmSync(options.home, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  let closed = false;
  return {
    output: () => output,
    exitStatus: () => exitStatus,
    async close() {
      if (closed) return;
      closed = true;
      process.removeListener('exit', onExit);
      // SIGTERM lets the server stop its own children (nginx's workers, wrangler's workerd).
      killGroup('SIGTERM');
      await Promise.race([exited, sleep(5_000)]);
      killGroup('SIGKILL');
      await Promise.race([exited, sleep(2_000)]);
      await rm(options.home, { recursive: true, force: true });
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
