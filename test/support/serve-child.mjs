// `addon-gen serve` in a process of its own, so that a test can measure the server's memory alone.
// Run as `node --expose-gc serve-child.mjs '<ServeOptions as JSON>'` with an IPC channel: it sends
// {kind: 'ready', url, root}, answers 'memory' with process.memoryUsage() after full garbage
// collections, 'files' with its open file descriptors and how many of them are sockets (Linux; -1 elsewhere) and how many file
// handles the collector had to close, and 'close' by closing the server and leaving.
// Needs lib/ (npm run build:ts).
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { startServer } from '../../lib/serve/index.js';

// A FileHandle the server forgot stays open until the collector closes it, with this warning.
let closedByCollector = 0;
process.on('warning', (warning) => {
  if (/Closing file descriptor \d+ on garbage collection/.test(warning.message)) closedByCollector++;
});

const server = await startServer({ ...JSON.parse(process.argv[2]), port: 0 });
process.send({ kind: 'ready', url: server.url, root: server.root });

process.on('message', async (message) => {
  if (message === 'memory') {
    // Several rounds, a turn of the event loop apart: what one collection frees (closed sockets,
    // finished streams) lets the next free more.
    for (let round = 0; round < 4; round++) {
      globalThis.gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    process.send({ kind: 'memory', usage: process.memoryUsage() });
  } else if (message === 'files') {
    const fds = existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd') : undefined;
    const isSocket = (fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:');
      } catch {
        return false; // closed meanwhile (the descriptor readdir itself used)
      }
    };
    const count = fds ? fds.length : -1;
    const sockets = fds ? fds.filter(isSocket).length : -1;
    process.send({ kind: 'files', count, sockets, closedByCollector });
  } else if (message === 'close') {
    await server.close();
    process.disconnect();
  }
});
