// `rwx serve`: run the bot. Thin: flags, configuration, logger, then src/serve/main.ts; stops cleanly on
// SIGTERM/SIGINT (watches, workers, Redis) and exits 0.
import type { Logger } from 'pino';
import { ConfigError, loadConfig, type Config } from '../config/index.js';
import { RwxError } from '../errors.js';
import { createLogger, routeConsole } from '../serve/log.js';
import { runServe } from '../serve/main.js';
import { parseFlags } from './args.js';
import { helpText } from './commands.js';
import { FLAGS } from './flags.js';
import type { Command } from './io.js';

const HELP = helpText(
  'serve',
  `Watches the cluster (read-only), correlates stuck pods and missed CronJobs into incidents, and posts one Slack
thread per incident. Configuration comes from the environment (SLACK_BOT_TOKEN, SLACK_CHANNEL, SLACK_APP_TOKEN or
SLACK_SIGNING_SECRET, REDIS_URL, PORT, RWX_STUCK_AFTER, RWX_GROUP_WAIT, ...) and optionally a YAML file.
Serves /healthz, /readyz and /metrics on PORT (default 3000). SIGTERM stops it cleanly.`,
);

/** Runs until SIGTERM or SIGINT; exit 0 after a clean stop, 1 when start-up fails. */
export const run: Command = async (argv, io) => {
  const { values } = parseFlags(argv, FLAGS.serve);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const config = withSlackHint(() =>
    loadConfig({
      env: io.env,
      ...(values.config ? { file: values.config } : {}),
      flags: {
        ...(values.kubeconfig ? { kubeconfig: values.kubeconfig } : {}),
        ...(values.context ? { context: values.context } : {}),
      },
    }),
  );
  const log = createLogger(config.logLevel);
  // Libraries that print with console.* (BullMQ) write JSON lines too, for as long as the bot runs.
  const restoreConsole = routeConsole(log);
  try {
    return await serve(config, log, io.env);
  } finally {
    restoreConsole();
  }
};

// A first `rwx serve` without the Slack app's tokens: the problems name the variables, the hint says where they
// come from, and that `rwx demo` needs none.
function withSlackHint(load: () => Config): Config {
  try {
    return load();
  } catch (e) {
    if (!(e instanceof ConfigError) || !e.problems.some((p) => p.startsWith('SLACK_'))) throw e;
    const hint = 'the Slack app and its tokens: docs/slack-app.md; rwx demo runs without Slack';
    throw new RwxError('CONFIG', `${e.message} (${hint})`, { cause: e });
  }
}

// The signal handlers are installed before anything starts: a SIGTERM while Redis, the API or Slack are still
// being reached is not lost (Node's default would kill the process mid-start); the bot stops as soon as the
// start-up returns, which no outage holds for long (each connection attempt has its deadline; Slack is retried in
// the background).
async function serve(config: Config, log: Logger, env: NodeJS.ProcessEnv): Promise<number> {
  let received: string | undefined;
  let stop: (s: string) => void = (s) => (received ??= s);
  const onTerm = () => stop('SIGTERM');
  const onInt = () => stop('SIGINT');
  process.once('SIGTERM', onTerm);
  process.once('SIGINT', onInt);
  let signal: string;
  try {
    const running = await runServe(config, log, { env });
    log.info({ channel: config.slack.channel, mode: config.slack.mode }, 'rwx serve started');
    signal = await new Promise<string>((resolve) => {
      if (received) return resolve(received);
      stop = resolve;
      running.done.catch(() => resolve('pipeline failure'));
    });
    log.info({ signal }, 'stopping');
    await running.stop();
  } finally {
    process.removeListener('SIGTERM', onTerm);
    process.removeListener('SIGINT', onInt);
  }
  log.info({}, 'stopped');
  log.flush();
  return signal === 'pipeline failure' ? 1 : 0;
}
