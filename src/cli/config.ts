// `rwx config check [--config FILE]`: validate the configuration as `rwx serve` would and print the effective
// values (YAML, file form, secrets masked), or every problem found. Exit 0 when valid, 1 otherwise.
import { stringify } from 'yaml';
import { ConfigError, loadConfig, maskSecrets, toFileForm } from '../config/index.js';
import { RwxError } from '../errors.js';
import { parseFlags } from './args.js';
import { helpText } from './commands.js';
import { FLAGS } from './flags.js';
import type { Command } from './io.js';

const USAGE = helpText(
  'config',
  `Validates the configuration exactly as \`rwx serve\` loads it (defaults < --config file or RWX_CONFIG
< environment variables < flags) and prints the effective values as YAML with secrets masked.`,
);

/** Runs `rwx config SUBCOMMAND`. */
export const run: Command = async (argv, io) => {
  const { values, positionals } = parseFlags(argv, FLAGS.config, true);
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== 'check') {
    throw new RwxError(
      'USAGE',
      positionals.length
        ? `unknown subcommand "${positionals.join(' ')}" (expected: check)`
        : 'missing subcommand (expected: check)',
    );
  }
  try {
    const config = loadConfig({
      env: io.env,
      ...(values.config ? { file: values.config } : {}),
      flags: {
        ...(values.kubeconfig ? { kubeconfig: values.kubeconfig } : {}),
        ...(values.context ? { context: values.context } : {}),
      },
    });
    const header = `# rwx effective configuration (secrets masked). Slack mode: ${config.slack.mode === 'socket' ? 'Socket Mode' : 'HTTP, /slack/events on port ' + config.port}\n`;
    io.stdout.write(header + stringify(toFileForm(maskSecrets(config))));
    return 0;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.stderr.write(`rwx config check: ${e.problems.length} problem${e.problems.length === 1 ? '' : 's'}\n`);
    for (const p of e.problems) io.stderr.write(`  ${p}\n`);
    return 1;
  }
};
