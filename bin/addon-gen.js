#!/usr/bin/env node
// The installed command: runs the compiled CLI and exits with the status it returns.
// A build writes many small files: more threads for libuv's file system calls (default 4),
// set before the first one starts the pool.
process.env.UV_THREADPOOL_SIZE ??= '16';
// V8 lets the heap grow to up to four times what was live at its last full collection before it
// collects again: a large build's peak memory was mostly garbage waiting for that. Two and a half
// times, for one or two more full collections and no measurable CPU (at twice, they start to
// cost); but, past a live heap of about 85 MiB, by no more than 128 MiB: in proportion, the
// garbage grew with the catalog, to half a gigabyte for a million files. The factor is V8's flag,
// read at the end of each full collection, and set again after each one from what it left live
// (while the main thread works without pause, as plan does, the last one set holds). Figures:
// bench/README.md, "Memory".
const v8 = await import('node:v8');
const { PerformanceObserver, constants } = await import('node:perf_hooks');
// Past a live heap of 512 MiB (a catalog of a million files), the collector also starts marking
// once half that growth is allocated, not when it is nearly used up: the heap goes on growing while
// it marks, and the peak was that much higher (bench/README.md, "Memory at a million files").
const GROWING_PERCENT = 150;
const MAX_GROWTH = 128 * 1024 * 1024;
const EARLY_MARKING_FROM = 512 * 1024 * 1024;
const growBy = (percent) => v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
// Set only when it changes: a build that never holds that much leaves V8's own rule alone.
let markingFrom = 0;
const markFrom = (percent) => {
  if (percent !== markingFrom) v8.setFlagsFromString(`--incremental-marking-hard-trigger=${(markingFrom = percent)}`);
};
growBy(GROWING_PERCENT);
new PerformanceObserver((list) => {
  if (!list.getEntries().some((entry) => entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)) return;
  const live = v8.getHeapStatistics().used_heap_size;
  growBy(Math.max(10, Math.min(GROWING_PERCENT, Math.floor((100 * MAX_GROWTH) / live))));
  markFrom(live > EARLY_MARKING_FROM ? 50 : 0);
}).observe({ entryTypes: ['gc'] });
const { run } = await import('../lib/cli/index.js');
const { processIo } = await import('../lib/cli/io.js');

const io = processIo();
process.exitCode = await run(process.argv.slice(2), io);
// A write that failed after the command ended (its last lines, to a reader gone): an I/O failure.
process.on('exit', () => {
  if (process.exitCode === 0 && io.outputLost()) process.exitCode = 2;
});
