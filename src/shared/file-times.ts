// The rule two stages share for trusting what a file's times say (git's "racily clean" entries):
// a file rewritten in place with the same size within one tick of the file system's clock keeps
// its times (ext4 before Linux 6.13 ticks in jiffies, FAT in two seconds), but only if it had
// changed within that tick before. So a file's times tell its bytes apart only once its last
// change lies some time in the past. load trusts a content file's stamp after two seconds (FAT's
// tick); serve keeps a file in memory after one.
import type { BigIntStats } from 'node:fs';

/** Whether the last change of the file whose stat is `info` (its mtime or ctime) lies at least `ms` before `at`. */
export function changedBefore(info: BigIntStats, ms: number, at = Date.now()): boolean {
  const changed = info.mtimeNs > info.ctimeNs ? info.mtimeNs : info.ctimeNs;
  return BigInt(at - ms) * 1_000_000n >= changed;
}
