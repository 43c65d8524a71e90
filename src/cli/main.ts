// `rwx`: dispatches to one module per subcommand. Thin: parsing and wiring only. The commands, their flags and
// help are described in commands.ts; this maps each name to the module that runs it.
import { isRwxError, toRwxError } from '../errors.js';
import { COMMANDS, usage } from './commands.js';
import type { CommandName } from './flags.js';
import { processIo, type CliIo, type Command } from './io.js';

export { usage };

/** Subcommand modules, loaded lazily so `rwx --help` stays fast and each command pulls in only what it needs. */
const LOADERS: Readonly<Record<CommandName, () => Promise<{ run: Command }>>> = {
  triage: () => import('./triage.js'),
  scan: () => import('./scan.js'),
  'drain-check': () => import('./drain-check.js'),
  diff: () => import('./diff.js'),
  capture: () => import('./capture.js'),
  policy: () => import('./policy.js'),
  gate: () => import('./gate.js'),
  serve: () => import('./serve.js'),
  demo: () => import('./demo.js'),
  sim: () => import('./sim.js'),
  agent: () => import('./agent.js'),
  node: () => import('./node.js'),
  config: () => import('./config.js'),
  version: () => import('./version.js'),
  completion: () => import('./completion.js'),
};

const isCommand = (name: string): name is CommandName => Object.hasOwn(COMMANDS, name);

/** Runs the CLI; returns the process exit code. Never throws. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [first, ...rest] = argv;
  const name = first === '--version' || first === '-V' ? 'version' : first;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage());
    return name === undefined ? 1 : 0;
  }
  if (!isCommand(name)) {
    io.stderr.write(`rwx: unknown command ${JSON.stringify(name)}\n\n${usage()}`);
    return 1;
  }
  try {
    const mod = await LOADERS[name]();
    return await mod.run(rest, io);
  } catch (e) {
    const err = toRwxError(e);
    io.stderr.write(`rwx ${name}: ${err.message}\n`);
    if (io.env.RWX_DEBUG && err.stack) io.stderr.write(`${err.stack}\n`);
    if (isRwxError(e, 'USAGE')) io.stderr.write(`(see: rwx ${name} --help)\n`);
    return 1;
  }
}
