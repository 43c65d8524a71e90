// The incident every Redis failover test runs through: `rwx serve` (the compiled CLI) on the propagation-loss
// scenario with the fake Slack, its root and evidence reply posted, and a first change (postgres-2 recovers) told
// in the thread before the fault. The test then breaks its Redis, makes the second change and checks the thread.
import { randomBytes } from 'node:crypto';
import { startSimulator, type Simulator } from '@rwx/kube-sim';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack.js';
import type { FakeMessage } from '../support/fake-slack-methods.js';
import { until } from '../support/until.js';
import { startServeChild, type ServeChild } from './child.js';

/** The pod the first change recovers, before the fault, and the one the second recovers, during it. */
export const BEFORE = ['platform', 'postgres-2'] as const;
export const DURING = ['search', 'search-7c9d8f6b5-kccvl'] as const;

/** A running incident on a bot of its own. */
export interface HaIncident {
  slack: FakeSlack;
  child: ServeChild;
  prefix: string;
  root: FakeMessage;
  /** Makes `pod` Running in the simulator. */
  recover(pod: readonly [string, string]): void;
  /** The index of the thread's reply telling `pod` recovered, -1 while none does. */
  told(pod: readonly [string, string]): number;
  /** The texts of the root's edits Slack acted on, in order. */
  edits(): string[];
  close(): Promise<void>;
}

/** Starts the bot with `env` (where its Redis is), runs `beforeRoot` once it is ready, and waits for the first change. */
export async function haIncident(
  env: Record<string, string>,
  beforeRoot: () => Promise<void> = async () => undefined,
): Promise<HaIncident> {
  const sim: Simulator = await startSimulator({ scenario: 'scenarios/propagation-loss.yaml' });
  const slack = await startFakeSlack();
  const prefix = `rwx-fault-ha-${randomBytes(4).toString('hex')}`;
  const close = async (): Promise<void> => {
    child?.process.kill('SIGKILL');
    await child?.exited;
    await slack.close();
    await sim.stop();
  };
  let child: ServeChild | undefined;
  try {
    child = await startServeChild(sim.kubeconfigPath, {
      ...env,
      SLACK_BOT_TOKEN: 'xoxb-ha',
      SLACK_SIGNING_SECRET: 'secret',
      SLACK_CHANNEL: 'C0INCIDENT',
      SLACK_API_URL: slack.apiUrl,
      RWX_REDIS_PREFIX: env.RWX_REDIS_PREFIX ?? prefix,
      RWX_GROUP_WAIT: '1s',
      RWX_GROUP_INTERVAL: '1s',
    });
    await beforeRoot();
    await until(
      () => slack.roots().length === 1 && slack.replies(slack.roots()[0]!.ts).length >= 1,
      'the root',
      20_000,
    );
  } catch (e) {
    await close();
    throw e;
  }
  const root = slack.roots()[0]!;
  const told = (pod: readonly [string, string]): number =>
    slack.replies(root.ts).findIndex((r) => {
      const b = JSON.stringify(r.blocks);
      return b.includes(`${pod[0]}/${pod[1]}`) && /recovered/.test(b);
    });
  const recover = (pod: readonly [string, string]): void =>
    sim.apply({ set: [{ kind: 'Pod', namespace: pod[0], name: pod[1], fields: { 'status.phase': 'Running' } }] });
  recover(BEFORE);
  await until(() => told(BEFORE) >= 0, 'the first change', 20_000);
  const edits = (): string[] =>
    slack.callsOf('chat.update').flatMap((c) => (c.args.ts === root.ts && c.handled ? [String(c.args.text)] : []));
  return { slack, child: child!, prefix: env.RWX_REDIS_PREFIX ?? prefix, root, recover, told, edits, close };
}
