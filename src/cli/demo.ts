// `rwx demo`: the README's first command. Thin: flags, logger, then src/serve/demo.ts.
import { fileURLToPath } from 'node:url';
import { createLogger } from '../serve/log.js';
import { runDemo } from '../serve/demo.js';
import { runFleetDemo } from '../serve/demo-fleet.js';
import { numberValue, parseFlags } from './args.js';
import { helpText } from './commands.js';
import { FLAGS } from './flags.js';
import type { Command } from './io.js';
import { RwxError } from '../errors.js';

const DEFAULT_SCENARIO = fileURLToPath(new URL('../../scenarios/propagation-loss.yaml', import.meta.url));

const HELP = helpText(
  'demo',
  `Plays a simulated incident (default: scenarios/propagation-loss.yaml, a node plugin rollout that loses
mountPropagation) through the whole pipeline: a Kubernetes API simulator, the watcher, detectors, correlator,
BullMQ on Redis, and a Slack thread printed here. No Slack workspace and no cluster needed; Redis is (default
REDIS_URL or redis://127.0.0.1:6379). With --fleet: three simulated clusters sharing one Redis and one channel; the
same bad ebs-csi-node revision breaks two of them (one thread links the other), and the
third is warned as it starts the same rollout.`,
);

/** Exit 0 once every incident is resolved (or on Ctrl-C with --follow), 1 on error or timeout. */
export const run: Command = async (argv, io) => {
  const { values } = parseFlags(argv, FLAGS.demo);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const speed = numberValue(values.speed) ?? 30;
  const log = createLogger(io.env.LOG_LEVEL ?? 'warn', { write: (s: string) => io.stderr.write(s) } as never);
  let onInt: () => void = () => undefined;
  const interrupted = new Promise<void>((resolve) => {
    onInt = () => resolve();
    process.once('SIGINT', onInt);
  });
  const redisUrl = values.redis ?? io.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  try {
    if (values.fleet) {
      if (values.scenario || values.follow)
        throw new RwxError('USAGE', 'rwx demo --fleet plays its own scenarios: drop --scenario and --follow');
      return await runFleetDemo({ speed, redisUrl, out: io.stdout as never, log, interrupted });
    }
    return await runDemo({
      scenario: values.scenario ?? DEFAULT_SCENARIO,
      speed,
      redisUrl,
      follow: values.follow ?? false,
      out: io.stdout as never,
      log,
      interrupted,
    });
  } finally {
    process.removeListener('SIGINT', onInt);
  }
};
