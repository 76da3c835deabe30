// Preloaded into each measured process: at exit, its peak resident set size as the OS counted it
// (getrusage's ru_maxrss, in KiB) goes to the file named by MAX_RSS_FILE.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  if (process.env.MAX_RSS_FILE) writeFileSync(process.env.MAX_RSS_FILE, String(process.resourceUsage().maxRSS));
});
