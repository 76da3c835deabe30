#!/usr/bin/env node
// The installed command: runs the compiled CLI and exits with the status it returns.
import { run } from '../lib/cli.js';

process.exitCode = await run(process.argv.slice(2));
