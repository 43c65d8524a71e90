// The rwx commands: name, one-line summary, usage, flags (flags.ts) and what their positional arguments are. The
// top-level usage, every --help, shell completion and the flag table test read this table; main.ts maps each name
// to the module that runs it. Loads nothing heavy, so `rwx --help` and `rwx completion` stay instant.
import { flagHelp, type Completion, type FlagSpecs } from './args.js';
import { FLAGS, type CommandName } from './flags.js';

/** One command as the table describes it. */
export interface CommandSpec {
  summary: string;
  /** The usage line(s) after "Usage: ". */
  usage: string;
  flags: FlagSpecs;
  /** Words the first positional may be (a subcommand), or what completion offers for positionals. */
  positionals?: Completion;
  /** The exit codes line of --help. */
  exit?: string;
}

const READ_EXIT = 'Exit codes: 0 nothing needs attention, 2 something does, 1 error.';

/** Every command, in the order the top-level usage lists them. */
export const COMMANDS: Readonly<Record<CommandName, CommandSpec>> = {
  triage: {
    summary: 'classify every ReadWriteMany claim by failure strand',
    usage: 'rwx triage [--snapshot FILE|- | --kubeconfig FILE --context NAME] [-n NS | -A] [--driver NAME] [-o FORMAT]',
    flags: FLAGS.triage,
    exit: READ_EXIT,
  },
  scan: {
    summary: 'one pass of detectors and correlator: print incidents',
    usage: 'rwx scan [--snapshot FILE | --kubeconfig FILE] [-o FORMAT] [--stuck-after 5m]',
    flags: FLAGS.scan,
    exit: 'Exit codes: 0 no incident, 2 incidents, 5 cannot tell (none found, but a kind it reads was unreadable), 1 error.',
  },
  'drain-check': {
    summary: 'is it safe to drain NODE? (exit 0 ok, 3 blocked, 4 caution, 5 unknown)',
    usage: 'rwx drain-check NODE [--snapshot FILE | --kubeconfig FILE] [-o FORMAT]',
    flags: FLAGS['drain-check'],
    positionals: 'node',
    exit: 'Exit codes: 0 OK, 3 BLOCK, 4 CAUTION, 5 UNKNOWN (an input could not be read), 1 error.',
  },
  diff: {
    summary: 'pod template difference between two DaemonSet revisions',
    usage:
      'rwx diff daemonset/NAME [-n NS | -A] [--from REV --to REV] [--snapshot FILE | --kubeconfig FILE] [-o FORMAT]',
    flags: FLAGS.diff,
    exit: 'Exit codes: 0 shown, 1 error.',
  },
  capture: {
    summary: 'write the cluster as a file for --snapshot: analyse an incident offline, attach it to a ticket',
    usage:
      'rwx capture [--kubeconfig FILE] [--context NAME] [-n NS | -A] [--for COMMAND] [--request-timeout 30s] > FILE',
    flags: FLAGS.capture,
    exit: 'Exit codes: 0 every kind captured, 5 written without a kind that could not be read (said on stderr), 1 error.',
  },
  policy: {
    summary: 'check CSI node plugins for mountPropagation: Bidirectional',
    usage: 'rwx policy check (-f FILE|DIR|- ... | --cluster) [--require-plugin] [-o FORMAT]',
    flags: FLAGS.policy,
    positionals: ['check'],
    exit: 'Exit codes: 0 clean, 2 violations (or, with --require-plugin, no CSI node plugin found), 1 error.',
  },
  gate: {
    summary: 'post-upgrade gate: mount a fresh volume on every node',
    usage:
      'rwx gate --storage-class SC [--nodes a,b] [-n NS] [--timeout 5m] [--parallel 3] [-o FORMAT]\n       rwx gate --cleanup [-n NS]',
    flags: FLAGS.gate,
    exit: 'Exit codes: 0 every node passed, 2 a node failed, 1 error, 130 interrupted (after cleaning up).',
  },
  serve: {
    summary: 'run the bot: watch, correlate, post to Slack',
    usage: 'rwx serve [--config FILE] [--kubeconfig FILE] [--context NAME]',
    flags: FLAGS.serve,
    exit: 'Exit codes: 0 after a clean stop, 1 when start-up fails.',
  },
  demo: {
    summary: 'the whole pipeline on a simulated cluster with a terminal Slack',
    usage:
      'rwx demo [--scenario FILE] [--speed N] [--redis URL] [--follow]\n       rwx demo --fleet [--speed N] [--redis URL]',
    flags: FLAGS.demo,
    exit: 'Exit codes: 0 once every incident is resolved (--fleet: once both threads are posted), 1 on error or timeout.',
  },
  sim: {
    summary: 'serve a Kubernetes API simulator for a scenario file',
    usage: 'rwx sim SCENARIO_FILE [--port N] [--admin-port N] [--speed N] [--tls]',
    flags: FLAGS.sim,
    positionals: 'file',
    exit: 'Exit codes: 0 once stopped (Ctrl-C or SIGTERM), 1 error (an unreadable scenario, a port in use).',
  },
  agent: {
    summary: 'the node agent: prove from /proc what the API cannot (docs/agent.md)',
    usage:
      'rwx agent [--once [-o FORMAT]] [--port N] [--kubelet-dir DIR] [--host-pid N] [--proc DIR] [--host-root DIR]',
    flags: FLAGS.agent,
  },
  node: {
    summary: "fetch and show the node agent's report for NODE",
    usage: 'rwx node NODE [--kubeconfig FILE] [--context NAME] [--agent-url URL] [-o FORMAT] [--timeout 5s]',
    flags: FLAGS.node,
    positionals: 'node',
    exit: READ_EXIT.replace('1 error.', '1 error (no agent on NODE, unreachable).'),
  },
  config: {
    summary: 'config check: print the effective configuration, secrets masked',
    usage: 'rwx config check [--config FILE] [--kubeconfig FILE] [--context NAME]',
    flags: FLAGS.config,
    positionals: ['check'],
    exit: 'Exit codes: 0 valid, 1 with every problem listed otherwise.',
  },
  version: {
    summary: 'print the version and the git commit it was built from',
    usage: 'rwx version [-o FORMAT]   (or rwx --version)',
    flags: FLAGS.version,
  },
  completion: {
    summary: 'print a shell completion script: rwx completion bash|zsh',
    usage: 'rwx completion bash|zsh',
    flags: FLAGS.completion,
    positionals: ['bash', 'zsh'],
  },
};

/** A command's --help: usage, the command's own description, its flags from the table, its exit codes. */
export function helpText(name: CommandName, description: string): string {
  const c = COMMANDS[name];
  const exit = c.exit ? `\n${c.exit}\n` : '';
  return `Usage: ${c.usage}\n\n${description.trim()}\n\nFlags:\n${flagHelp(c.flags)}\n${exit}`;
}

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
    'Exit codes: 0 nothing needs attention, 2 something does, 1 error; drain-check 3 blocked, 4 caution, 5 unknown;',
    'scan 5 cannot tell; capture 5 incomplete; gate 130 interrupted. Each command lists its own in --help.',
    '',
  ].join('\n');
}
