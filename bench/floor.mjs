// The disk floor: writes the files listed in LIST (relative path and size) below DEST, in the
// order listed (the build's), with no parsing, rendering or renaming: the fastest plain way we
// know to make that many files. Like the build, two worker threads make them with synchronous
// calls (measured faster than fs.writeFile through libuv's pool, which made an earlier floor
// slower than the build itself).
//   node floor.mjs LIST DEST   ->   prints {"files": N, "bytes": N}
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const THREADS = 2;
const BATCH_FILES = 64;

if (isMainThread) {
  const [listFile, dest] = process.argv.slice(2);
  const list = JSON.parse(readFileSync(listFile, 'utf8'));
  let next = 0;
  let bytes = 0;
  await Promise.all(
    Array.from({ length: THREADS }, async () => {
      const worker = new Worker(new URL(import.meta.url), { workerData: { dest } });
      // Two batches per thread in flight, as the build keeps: the thread never waits for work.
      let inFlight = 0;
      await new Promise((resolve, reject) => {
        const send = () => {
          while (inFlight < 2 && next < list.length) {
            const batch = list.slice(next, (next += BATCH_FILES));
            for (const [, size] of batch) bytes += size;
            worker.postMessage(batch);
            inFlight++;
          }
          if (inFlight === 0) resolve();
        };
        worker.on('message', () => {
          inFlight--;
          send();
        });
        worker.on('error', reject);
        send();
      });
      await worker.terminate();
    }),
  );
  console.log(JSON.stringify({ files: list.length, bytes }));
} else {
  const made = new Set();
  parentPort.on('message', (batch) => {
    for (const [relative, size] of batch) {
      const target = path.join(workerData.dest, relative);
      const dir = path.dirname(target);
      if (!made.has(dir)) mkdirSync(dir, { recursive: true });
      made.add(dir);
      writeFileSync(target, Buffer.alloc(size, 120));
    }
    parentPort.postMessage(0);
  });
}
