// Fingerprints of texts, as the bookkeeping keeps them: what a build's inputs are (build), whether
// a content file is as an earlier build checked it (validate), and what files are rendered from (plan).
import { hash } from 'node:crypto';
import type { SourceFile } from '../load/index.js';

/** The fingerprint of a text or of bytes, as the bookkeeping keeps it (one call, no Hash object). */
export function sha1(data: string | Uint8Array): string {
  return hash('sha1', data, 'base64url');
}

/**
 * The fingerprint of a content file's text, worked out once: a build's inputs (build/last-build.ts)
 * and its files' fingerprints (plan/fingerprints.ts) both need it, and hashing all the content's
 * YAML twice would be wasted time (figures: bench/README.md, 'Text fingerprints once').
 */
export function textFingerprint(source: SourceFile): string {
  return (source.textFingerprint ??= sha1(source.text));
}
