// `rwx version` (and `rwx --version`): the build that is running, as `rwx_build_info` reports it on /metrics.
import { buildInfo, versionLine } from '../build-info.js';
import { outputFormat, parseFlags } from './args.js';
import type { Command } from './io.js';

const HELP = `Usage: rwx version [-o text|json]

Prints the version (package.json) and the git commit this build came from: RWX_COMMIT (set in the image at build
time), else the checkout's HEAD, else "unknown". rwx --version prints the same.

  -o, --output FORMAT   text (default: one line) or json ({"version", "commit"})
`;

/** Prints the build info; exit 0. */
export const run: Command = async (argv, io) => {
  const { values } = parseFlags(argv, {
    output: { type: 'string', short: 'o' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const format = outputFormat(values.output, ['text', 'json']);
  const info = buildInfo(io.env);
  io.stdout.write(`${format === 'json' ? JSON.stringify(info) : versionLine(info)}\n`);
  return 0;
};
