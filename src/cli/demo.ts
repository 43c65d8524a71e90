// `rwx demo`: the README's first command. Thin: flags, logger, then src/serve/demo.ts.
import { fileURLToPath } from 'node:url';
import { RwxError } from '../errors.js';
import { createLogger } from '../serve/log.js';
import { runDemo } from '../serve/demo.js';
import { parseFlags } from './args.js';
import type { Command } from './io.js';

const DEFAULT_SCENARIO = fileURLToPath(new URL('../../scenarios/propagation-loss.yaml', import.meta.url));

const HELP = `Usage: rwx demo [--scenario FILE] [--speed N] [--redis URL] [--follow]

Plays a simulated incident (default: the CSI propagation-loss rollout of the seed) through the whole pipeline:
a Kubernetes API simulator, the watcher, detectors, correlator, BullMQ on Redis, and a Slack thread printed here.
No Slack workspace and no cluster needed; Redis is (default REDIS_URL or redis://127.0.0.1:6379).

  --scenario FILE   scenario YAML (default scenarios/propagation-loss.yaml)
  --speed N         simulated time runs N times faster than wall time (default 30: the story takes about a minute)
  --redis URL       Redis URL (default REDIS_URL, else redis://127.0.0.1:6379)
  --follow          keep running after every incident is resolved (Ctrl-C to stop)
`;

/** Exit 0 once every incident is resolved (or on Ctrl-C with --follow), 1 on error or timeout. */
export const run: Command = async (argv, io) => {
  const { values } = parseFlags(argv, {
    scenario: { type: 'string' },
    speed: { type: 'string' },
    redis: { type: 'string' },
    follow: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const speed = values.speed === undefined ? 30 : Number(values.speed);
  if (!Number.isFinite(speed) || speed <= 0 || speed > 1000)
    throw new RwxError('USAGE', `--speed must be a number between 0 and 1000 (got "${values.speed}")`);
  const log = createLogger(io.env.LOG_LEVEL ?? 'warn', { write: (s: string) => io.stderr.write(s) } as never);
  let onInt: () => void = () => undefined;
  const interrupted = new Promise<void>((resolve) => {
    onInt = () => resolve();
    process.once('SIGINT', onInt);
  });
  try {
    return await runDemo({
      scenario: values.scenario ?? DEFAULT_SCENARIO,
      speed,
      redisUrl: values.redis ?? io.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      follow: values.follow ?? false,
      out: io.stdout as never,
      log,
      interrupted,
    });
  } finally {
    process.removeListener('SIGINT', onInt);
  }
};
