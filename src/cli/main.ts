// `rwx`: dispatches to one module per subcommand. Thin: parsing and wiring only.
import { isRwxError, toRwxError } from '../errors.js';
import { processIo, type CliIo, type Command } from './io.js';

/** Subcommands, loaded lazily so `rwx --help` stays fast and each command pulls in only what it needs. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<{ run: Command }> }> = {
  triage: { summary: 'classify every ReadWriteMany claim by failure strand', load: () => import('./triage.js') },
  scan: { summary: 'one pass of detectors and correlator: print incidents', load: () => import('./scan.js') },
  'drain-check': {
    summary: 'is it safe to drain NODE? (exit 0 ok, 3 blocked, 4 caution)',
    load: () => import('./drain-check.js'),
  },
  diff: { summary: 'pod template difference between two DaemonSet revisions', load: () => import('./diff.js') },
  policy: { summary: 'check CSI node plugins for mountPropagation: Bidirectional', load: () => import('./policy.js') },
  gate: { summary: 'post-upgrade gate: mount a fresh volume on every node', load: () => import('./gate.js') },
  serve: { summary: 'run the bot: watch, correlate, post to Slack', load: () => import('./serve.js') },
  demo: { summary: 'the whole pipeline on a simulated cluster with a terminal Slack', load: () => import('./demo.js') },
  sim: { summary: 'serve a Kubernetes API simulator for a scenario file', load: () => import('./sim.js') },
  agent: {
    summary: 'the node agent: prove from /proc what the API cannot (docs/agent.md)',
    load: () => import('./agent.js'),
  },
  node: { summary: "fetch and show the node agent's report for NODE", load: () => import('./node.js') },
  config: {
    summary: 'config check: print the effective configuration, secrets masked',
    load: () => import('./config.js'),
  },
  version: { summary: 'print the version and the git commit it was built from', load: () => import('./version.js') },
};

/** Top-level usage text. */
export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'rwx: find, correlate and explain Kubernetes RWX / CSI storage failures',
    '',
    'Usage: rwx COMMAND [flags]     (rwx COMMAND --help for its flags; rwx --version)',
    '',
    'Commands:',
    ...lines,
    '',
    'Exit codes: 0 nothing needs attention, 2 something does, 1 error (drain-check: 3 blocked, 4 caution).',
    '',
  ].join('\n');
}

/** Runs the CLI; returns the process exit code. Never throws. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [first, ...rest] = argv;
  const name = first === '--version' || first === '-V' ? 'version' : first;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage());
    return name === undefined ? 1 : 0;
  }
  const cmd = COMMANDS[name];
  if (!cmd) {
    io.stderr.write(`rwx: unknown command "${name}"\n\n${usage()}`);
    return 1;
  }
  try {
    const mod = await cmd.load();
    return await mod.run(rest, io);
  } catch (e) {
    const err = toRwxError(e);
    io.stderr.write(`rwx ${name}: ${err.message}\n`);
    if (io.env.RWX_DEBUG && err.stack) io.stderr.write(`${err.stack}\n`);
    if (isRwxError(e, 'USAGE')) io.stderr.write(`(see: rwx ${name} --help)\n`);
    return 1;
  }
}
