// `rwx version` (and `rwx --version`): the build that is running, as `rwx_build_info` reports it on /metrics.
import { buildInfo, versionLine } from '../build-info.js';
import { outputFormat, parseFlags } from './args.js';
import { helpText } from './commands.js';
import { FLAGS } from './flags.js';
import type { Command } from './io.js';
import { writeDocument } from './output.js';

const HELP = helpText(
  'version',
  `Prints the version (package.json) and the git commit this build came from: RWX_COMMIT (set in the image at build
time), else the checkout's HEAD, else "unknown". rwx --version prints the same. -o json: {"version", "commit"}.`,
);

/** Prints the build info; exit 0. */
export const run: Command = async (argv, io) => {
  const { values } = parseFlags(argv, FLAGS.version);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const format = outputFormat(values.output, FLAGS.version.output.check.values);
  const info = buildInfo(io.env);
  if (format === 'json') io.stdout.write(`${JSON.stringify(info)}\n`);
  else if (format === 'yaml') await writeDocument(io, format, info);
  else io.stdout.write(`${versionLine(info)}\n`);
  return 0;
};
