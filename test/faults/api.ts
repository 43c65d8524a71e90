// The bench for faults of the Kubernetes API: a world (test/support/world.ts) with the simulator in real time (short
// bookmark interval) serving the propagation-loss cluster, and `rwx serve` as a child process in HTTP mode with
// short timers. Helpers read what an operator would: /readyz, /metrics, the JSON log, the thread, a `/rwx` answer.
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Simulator } from '@rwx/kube-sim';
import type { FakeSlack } from '../support/fake-slack.js';
import { postSlashCommand } from '../support/slash-command.js';
import { until } from '../support/until.js';
import { CHANNEL, SIGNING_SECRET, openWorld } from '../support/world.js';
import { startServeChild, type ServeChild } from './child.js';
import { expectOneThread, sample } from './thread.js';

/** The rollout incident of the scenario (4 stuck pods at the start). */
export const ROLLOUT_KEY = 'rollout/kube-system/ebs-csi-node@2';
/** Sim (here: wall) milliseconds between watch bookmarks. */
export const BOOKMARK_MS = 1_000;
/**
 * RWX_WATCH_IDLE_TIMEOUT: a few bookmark intervals, as the 2m30s default is to the API server's minute (three here,
 * so a loaded test machine delaying a bookmark by a second does not pass for a stall).
 */
export const IDLE_MS = 3_000;
/**
 * RWX_RETRY_MAX: the cap of every backoff, 2 s here for the 10 s default, so an outage long enough for the backoff
 * to reach its cap lasts seconds, not a minute (src/domain/backoff.ts: 0.5, 1, 2, 2... s).
 */
export const RETRY_MAX_MS = 2_000;

/** One bot on one cluster, with its thread found. */
export interface ApiBench {
  sim: Simulator;
  slack: FakeSlack;
  bot: ServeChild;
  /** The rollout incident's root ts. */
  root: string;
  close(): Promise<void>;
}

/** Starts everything and waits for the rollout root and its evidence reply. */
export async function apiBench(env: Record<string, string> = {}): Promise<ApiBench> {
  const world = await openWorld({ name: 'fault-api', bookmarkIntervalMs: BOOKMARK_MS });
  const { sim, slack } = world;
  let bot: ServeChild | undefined;
  const close = async (): Promise<void> => {
    if (bot) {
      bot.process.kill('SIGKILL');
      await bot.exited;
    }
    await world.close();
  };
  try {
    bot = await startServeChild(
      sim.kubeconfigPath,
      world.env({
        RWX_ALLOWED_CHANNELS: CHANNEL,
        RWX_WATCH_IDLE_TIMEOUT: `${IDLE_MS}ms`,
        RWX_RETRY_MAX: `${RETRY_MAX_MS}ms`,
        ...env,
      }),
      60_000,
    );
    await until(() => slack.roots().length === 1 && slack.evidenceShown(slack.roots()[0]!.ts), 'the thread');
    const root = slack.roots()[0]!;
    expect(root.metadata?.event_payload.key).toBe(ROLLOUT_KEY);
    return { sim, slack, bot, root: root.ts, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/** Marks a stuck pod of the scenario Running (it mounted after all). */
export function recover(b: ApiBench, namespace: string, name: string): void {
  b.sim.apply({ set: [{ kind: 'Pod', namespace, name, fields: { 'status.phase': 'Running' } }] });
}

/** Whether the thread reports `pod` ("ns/name") as recovered. */
export function shownRecovered(b: ApiBench, pod: string): boolean {
  return b.slack.replies(b.root).some((r) => {
    const text = JSON.stringify(r.blocks);
    return text.includes(pod) && /recovered on its own/.test(text);
  });
}

/** Waits until /readyz answers `status` (with a body matching `body`, when given); returns the body. */
export async function readyz(b: ApiBench, status: number, what: string, ms = 30_000, body?: RegExp): Promise<string> {
  let last = '';
  await until(
    async () => {
      const r = await b.bot.get('/readyz');
      last = r.body;
      return r.status === status && (body === undefined || body.test(r.body));
    },
    what,
    ms,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; last /readyz: ${last}`);
  });
  return last;
}

/** The value of one sample of /metrics (`name{labels}`), 0 when absent. */
export async function metric(b: ApiBench, name: string): Promise<number> {
  return sample((await b.bot.get('/metrics')).body, name);
}

/** The bot's JSON log lines, as one string. */
export const logOf = (b: ApiBench): string => b.bot.lines.join('\n');

/** Sends `/rwx <text>` signed like Slack; resolves with what the bot POSTed to the response_url. */
export async function command(b: ApiBench, text: string): Promise<string> {
  const id = randomBytes(6).toString('hex');
  const url = `http://127.0.0.1:${b.bot.port}/slack/events`;
  const res = await postSlashCommand({
    url,
    secret: SIGNING_SECRET,
    channel: CHANNEL,
    text,
    responseUrl: b.slack.responseUrl(id),
  });
  expect(res.status).toBe(200);
  await until(() => (b.slack.responses.get(id)?.length ?? 0) > 0, `the answer to /rwx ${text}`);
  return JSON.stringify(b.slack.responses.get(id));
}

/** The invariants every fault must keep (thread.ts), with no "Changed:" the cluster did not make. */
export function expectOneTruth(b: ApiBench): void {
  expectOneThread(b.slack, b.root, { noInventedChange: true });
}
