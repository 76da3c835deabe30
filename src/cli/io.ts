// What a command prints to and how it ends: the streams, and an error turned into one line and
// an exit status (never a stack trace).
import { IoError, printable, systemErrorMessage, UsageError } from '../diagnostics/index.js';

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Stops a long-running command (serve); default: SIGINT or SIGTERM. */
  signal?: AbortSignal;
  /** Whether stderr is a terminal: problems are colored there. Default false. */
  stderrIsTTY?: boolean;
  /** Whether stdout is a terminal: long builds show a progress line there. Default false. */
  stdoutIsTTY?: boolean;
  /** The variables that change how problems print (NO_COLOR, FORCE_COLOR, TERM, GITHUB_ACTIONS, GITHUB_WORKSPACE). Default none. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Whether a write to stdout or stderr failed: the command then ends with the status of an I/O failure. */
  outputLost?: () => boolean;
}

/**
 * The Io of this process, for bin/. A write that fails does so later, as an 'error' event, which
 * unheard ends the process with a stack trace (`addon-gen build --json | head`): heard here, once
 * a stream is first written to. The command goes on without that stream, and `outputLost` tells
 * bin/ to end with status 2, as for any I/O failure.
 */
export function processIo(): Io {
  const lost = new Set<'stdout' | 'stderr'>();
  const writerTo = (name: 'stdout' | 'stderr'): ((text: string) => void) => {
    const stream = process[name];
    let heard = false;
    return (text) => {
      if (!heard) {
        heard = true;
        stream.on('error', (error) => {
          if (lost.has(name)) return;
          lost.add(name);
          // A reader that went away wants no word; a full device gets one, on stderr while it takes it.
          if (name === 'stdout' && systemCode(error) !== 'EPIPE' && !lost.has('stderr')) {
            process.stderr.write(`addon-gen: stdout: ${printable(systemErrorMessage(error) ?? error.message)}\n`);
          }
        });
      }
      if (!lost.has(name)) stream.write(text);
    };
  };
  return {
    stdout: writerTo('stdout'),
    stderr: writerTo('stderr'),
    outputLost: () => lost.size > 0,
    stderrIsTTY: process.stderr.isTTY === true,
    stdoutIsTTY: process.stdout.isTTY === true,
    env: process.env,
  };
}

const systemCode = (error: Error): unknown => Reflect.get(error, 'code');

/** The exit status of a bug in addon-gen: EX_SOFTWARE of sysexits.h, neither the content's fault nor the flags'. */
export const BUG_STATUS = 70;

/**
 * What to print for an error that ended a command, and the exit status, never a stack trace.
 * A usage error says what to change (its message may span lines: init lists the files in its
 * way). An error of the system (a full disk, no permission, a file where a folder belongs) is the
 * environment's, like a folder that cannot be written: 2, with the path and the reason in words.
 * Anything else is a bug: its own status, so that nobody looks for it in the content.
 */
export function failure(error: unknown): { status: number; message: string } {
  // An I/O error names paths that come from the content (a local file's name): one line.
  if (error instanceof IoError) return { status: 2, message: printable(error.message) };
  if (error instanceof UsageError) return { status: 2, message: printable(error.message, { newlines: true }) };
  const system = systemErrorMessage(error);
  if (system !== undefined) return { status: 2, message: printable(system) };
  const message = error instanceof Error ? error.message : String(error);
  return {
    status: BUG_STATUS,
    message: printable(`internal error: ${message}; this is a bug in addon-gen, please report it with the command that caused it`),
  };
}
