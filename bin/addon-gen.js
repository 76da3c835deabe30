#!/usr/bin/env node
// The installed command: runs the compiled CLI and exits with the status it returns.
// A build writes many small files: more threads for libuv's file system calls (default 4),
// set before the first one starts the pool.
process.env.UV_THREADPOOL_SIZE ??= '16';
const { run } = await import('../lib/cli.js');

process.exitCode = await run(process.argv.slice(2));
