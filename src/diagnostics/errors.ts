// Errors that stop a run outright rather than being reported as diagnostics: usage and I/O.
import { getSystemErrorMap } from 'node:util';

/** A usage error (bad flag, missing folder): exit status 2, no content diagnostics. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * A file system operation on the output (or S3) folder failed: disk full, read-only, no
 * permission, a file where a folder belongs. Exit status 2, like a folder that cannot be written;
 * the message names the path and says what the output folder holds now.
 */
export class IoError extends UsageError {
  override name = 'IoError';
  constructor(
    message: string,
    /** The path the operation failed on. */
    readonly path: string,
    /** The system's code (`ENOSPC`), when there is one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * A failed system call (Node's ErrnoException, with a code such as ENOSPC and the call or the
 * path) in words: `cannot write /x/y: no space left on the device (ENOSPC)`. Undefined for any
 * other error, Node's own ERR_* ones included: they carry a code but no call.
 */
export function systemErrorMessage(error: unknown): string | undefined {
  if (!(error instanceof Error) || !('code' in error) || typeof error.code !== 'string') return undefined;
  const field = (name: string): string | undefined => {
    const value: unknown = Reflect.get(error, name);
    return typeof value === 'string' ? value : undefined;
  };
  const [syscall, file, dest] = [field('syscall'), field('path'), field('dest')];
  if (syscall === undefined && file === undefined) return undefined;
  const errno: unknown = Reflect.get(error, 'errno');
  const verb = (syscall === undefined ? undefined : SYSCALL_VERBS.get(syscall)) ?? syscall ?? 'use';
  const what = file === undefined ? '' : ` ${file}${dest === undefined ? '' : ` to ${dest}`}`;
  return `cannot ${verb}${what}: ${systemErrorReason(error.code, typeof errno === 'number' ? errno : undefined)} (${error.code})`;
}

/** The system's code of an error (`ENOSPC`), or ''. */
export function errorCode(error: unknown): string {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : '';
}

/**
 * A failed system call on the output (or S3) folder as an IoError: the call, the path and the
 * reason in words (systemErrorMessage), then `outcome`, what the folder holds now. Anything that
 * is not a system error is returned as it is: a bug, not the disk's fault.
 */
export function ioFailure(error: unknown, outcome: string, at?: string): Error {
  if (error instanceof IoError) return error;
  // A failed write() or close() names no file: `at` is the one it was writing.
  if (at !== undefined && error instanceof Error && !('path' in error)) Object.assign(error, { path: at });
  const message = systemErrorMessage(error);
  if (message === undefined) return error instanceof Error ? error : new Error(String(error));
  const file = error instanceof Error && 'path' in error && typeof error.path === 'string' ? error.path : '';
  return new IoError(`${message}. ${outcome}`, file, errorCode(error));
}

/** The reason of a system error code in words: the usual ones as people say them, others as the system does. */
export function systemErrorReason(code: string, errno?: number): string {
  return SYSTEM_ERRORS.get(code) ?? (errno === undefined ? undefined : getSystemErrorMap().get(errno)?.[1]) ?? 'the system refused';
}

/** What each file system call was doing, as a message says it. */
const SYSCALL_VERBS = new Map([
  ['open', 'open'],
  ['read', 'read'],
  ['write', 'write'],
  ['fsync', 'write'],
  ['ftruncate', 'truncate'],
  ['close', 'close'],
  ['mkdir', 'create the folder'],
  ['mkdtemp', 'create a temporary folder at'],
  ['rmdir', 'remove the folder'],
  ['rm', 'remove'],
  ['unlink', 'remove'],
  ['rename', 'rename'],
  ['copyfile', 'copy'],
  ['link', 'link'],
  ['symlink', 'link'],
  ['scandir', 'list the folder'],
  ['opendir', 'list the folder'],
  ['stat', 'look at'],
  ['lstat', 'look at'],
  ['fstat', 'look at'],
  ['realpath', 'resolve'],
  ['access', 'access'],
  ['chmod', 'change the permissions of'],
  ['utime', 'set the time of'],
  ['futime', 'set the time of'],
  ['watch', 'watch'],
]);

const SYSTEM_ERRORS = new Map([
  ['ENOSPC', 'no space left on the device'],
  ['EDQUOT', 'over the disk quota'],
  ['EROFS', 'the file system is read-only'],
  ['EACCES', 'permission denied'],
  ['EPERM', 'operation not permitted'],
  ['ENOENT', 'no such file or folder'],
  ['ENOTDIR', 'a part of the path is a file, not a folder'],
  ['EISDIR', 'a folder is where a file goes'],
  ['EEXIST', 'something is already there'],
  ['ENOTEMPTY', 'the folder is not empty'],
  ['EMFILE', 'too many open files'],
  ['ENFILE', 'too many open files'],
  ['EIO', 'an input/output error of the device'],
  ['ENAMETOOLONG', 'the name is too long'],
  ['ELOOP', 'too many levels of symbolic links'],
  ['EBUSY', 'it is busy'],
  ['EXDEV', 'it is on another file system'],
  ['EFBIG', 'the file is too large'],
]);
