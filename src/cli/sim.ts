// `rwx sim SCENARIO_FILE [--port N] [--admin-port N] [--speed N] [--tls]`: serve a scenario as a Kubernetes API.
// The first line of stdout is the kubeconfig path (scripts read it); the server runs until SIGINT/SIGTERM. The
// simulator is a test tool (packages/kube-sim), loaded only here and by `rwx demo`.
import { RwxError } from '../errors.js';
import { loadSimulator } from '../serve/simulator.js';
import { numberValue, parseFlags } from './args.js';
import { helpText } from './commands.js';
import { FLAGS } from './flags.js';
import type { Command } from './io.js';

const HELP = helpText(
  'sim',
  `Serves a simulated Kubernetes API for a scenario file (see scenarios/). Prints the path of a kubeconfig
pointing at it as the first line of stdout, then serves until interrupted. Fault knobs (API down, stalled
watches, 403s, latency...) are switched over HTTP on the admin port: see packages/kube-sim/README.md.`,
);

/** Runs the simulator until a signal arrives (or `stopSignal` resolves, for in-process tests). */
export async function runSim(argv: string[], io: Parameters<Command>[1], stopSignal?: Promise<void>): Promise<number> {
  const { values, positionals } = parseFlags(argv, FLAGS.sim, true);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new RwxError('USAGE', 'expected exactly one SCENARIO_FILE');
  const port = numberValue(values.port);
  const adminPort = numberValue(values['admin-port']);
  const speed = numberValue(values.speed);
  const { startSimulator } = await loadSimulator();
  const scenario = positionals[0] ?? '';
  const sim = await startSimulator({ scenario, port, adminPort, speed, tls: values.tls === true });
  io.stdout.write(`${sim.kubeconfigPath}\n`);
  io.stderr.write(`rwx sim: serving ${sim.url} (kubectl --kubeconfig ${sim.kubeconfigPath} get pods -A)\n`);
  io.stderr.write(`rwx sim: fault knobs at ${sim.adminUrl ?? '(none)'}/faults\n`);
  await (stopSignal ??
    new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    }));
  await sim.stop();
  return 0;
}

/** Entry point for `rwx sim`. */
export const run: Command = (argv, io) => runSim(argv, io);
