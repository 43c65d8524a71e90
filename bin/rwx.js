#!/usr/bin/env node
// The `rwx` command: runs the compiled CLI (built by `npm run build`, which `npm ci` runs through `prepare`).
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
