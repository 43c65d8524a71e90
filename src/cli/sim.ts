// `rwx sim SCENARIO_FILE [--port N] [--admin-port N] [--speed N] [--tls]`: serve a scenario as a Kubernetes API.
// The first line of stdout is the kubeconfig path (scripts read it); the server runs until SIGINT/SIGTERM. The
// simulator is a test tool (packages/kube-sim), loaded only here and by `rwx demo`.
import { RwxError } from '../errors.js';
import { loadSimulator } from '../serve/simulator.js';
import { parseFlags } from './args.js';
import type { Command } from './io.js';

const HELP = `Usage: rwx sim SCENARIO_FILE [--port N] [--admin-port N] [--speed N] [--tls]

Serves a simulated Kubernetes API for a scenario file (see scenarios/). Prints the path of a kubeconfig
pointing at it as the first line of stdout, then serves until interrupted. Fault knobs (API down, stalled
watches, 403s, latency...) are switched over HTTP on the admin port: see packages/kube-sim/README.md.

  --port N         listen on port N (default: a random free port)
  --admin-port N   serve the fault knobs on port N (default: a random free port, printed on stderr)
  --speed N        run the scenario's timeline N times faster than real time (default 1)
  --tls            serve HTTPS with a throwaway self-signed certificate (kubectl then sends the bearer token)
`;

function positiveNumber(v: string | undefined, flag: string, integer: boolean): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) {
    throw new RwxError('USAGE', `${flag} must be a ${integer ? 'whole ' : ''}number >= 0 (got "${v}")`);
  }
  return n;
}

/** Runs the simulator until a signal arrives (or `stopSignal` resolves, for in-process tests). */
export async function runSim(argv: string[], io: Parameters<Command>[1], stopSignal?: Promise<void>): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      port: { type: 'string' },
      'admin-port': { type: 'string' },
      speed: { type: 'string' },
      tls: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    true,
  );
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new RwxError('USAGE', 'expected exactly one SCENARIO_FILE');
  const port = positiveNumber(values.port, '--port', true);
  const adminPort = positiveNumber(values['admin-port'], '--admin-port', true);
  const speed = positiveNumber(values.speed, '--speed', false);
  if (speed === 0) throw new RwxError('USAGE', '--speed must be greater than 0');
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
