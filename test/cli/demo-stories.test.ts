// Every demo story played once, as a new user sees it: what each message posts (budgets a phone can read, no
// table, the verdict first in the notification) and whether the story is told in order and in true words. The
// stories run at 120x (a few seconds each); `rwx demo` stopped by Ctrl-C exits 130 like every other command.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/serve/log.js';
import { runDemo } from '../../src/serve/demo.js';
import { runFleetDemo } from '../../src/serve/demo-fleet.js';
import type { MemorySlack } from '../../src/slack/memory-slack.js';
import type { Block } from '../../src/render/slack-blocks.js';
import { visibleLines } from '../../src/slack/terminal-slack.js';

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SPEED = 120;
/** What a root may show, and the first reply of a thread (visible characters, markup removed). */
const ROOT_BUDGET = 700;
const FIRST_REPLY_BUDGET = 3000;

/** One message as the bot sent it (a post or an edit). */
interface Sent {
  method: string;
  threadTs?: string;
  ts?: string;
  text: string;
  blocks?: Block[];
}

interface Played {
  code: number;
  out: string;
  sent: Sent[];
}

// Plays a story (a scenario, or the fleet) and keeps what it printed and every post and edit it sent.
async function play(story: string): Promise<Played> {
  let out = '';
  let slack: MemorySlack | undefined;
  const o = {
    speed: SPEED,
    redisUrl: REDIS,
    out: { write: (s: string) => (out += s) } as never,
    log: createLogger('silent'),
    onSlack: (s: MemorySlack) => (slack = s),
  };
  const code =
    story === 'fleet'
      ? await runFleetDemo(o)
      : await runDemo({ ...o, scenario: `scenarios/${story}.yaml`, follow: false });
  const sent = (slack?.calls ?? [])
    .filter((c) => c.method === 'postMessage' || c.method === 'update')
    .map((c) => ({ method: c.method, ...(c.args as Omit<Sent, 'method'>) }));
  return { code, out, sent };
}

const visible = (m: Sent) => visibleLines(m).join('');
const STORIES = ['propagation-loss', 'node-fault', 'cni-sandbox', 'fleet'] as const;
const played = new Map<string, Played>();

beforeAll(async () => {
  for (const s of STORIES) played.set(s, await play(s)); // one at a time: the machine is shared
}, 240_000);

describe.each(STORIES)('every message of the %s story', (story) => {
  it('plays to its end', () => {
    expect(played.get(story)!.code).toBe(0);
  });

  it(`roots within ${ROOT_BUDGET} visible characters, first replies within ${FIRST_REPLY_BUDGET}`, () => {
    const { sent } = played.get(story)!;
    // Incident roots (Block Kit); the fleet's rollout warning is a plain message of its own.
    const roots = sent.filter((m) => !m.threadTs && m.blocks?.length);
    expect(roots.length).toBeGreaterThan(0);
    for (const r of roots) expect(visible(r).length, visibleLines(r).join('\n')).toBeLessThanOrEqual(ROOT_BUDGET);
    const threads = new Set(sent.filter((m) => m.threadTs).map((m) => m.threadTs));
    for (const t of threads) {
      const first = sent.find((m) => m.threadTs === t)!;
      expect(visible(first).length).toBeLessThanOrEqual(FIRST_REPLY_BUDGET);
    }
  });

  it('posts no code-block table and cuts nothing mid-word', () => {
    for (const m of played.get(story)!.sent) {
      expect(JSON.stringify(m.blocks ?? [])).not.toContain('```');
      for (const line of visibleLines(m)) expect(line).not.toMatch(/…$/);
    }
  });

  it('leads every incident notification with the verdict', () => {
    const incident = played.get(story)!.sent.filter((m) => m.blocks?.length);
    for (const m of incident)
      expect(m.text).toMatch(/^(Do not drain\. |Rollback under way\. )?(Follows|Unexplained|Not storage|Resolved \()/);
  });

  it('prints no Slack markup in the terminal', () => {
    expect(played.get(story)!.out).not.toMatch(/:[a-z_]+:|\*[\w-]+\*|<!date/);
  });
});

describe('the rollout story, in order', () => {
  it('says the rollback is under way only after the story announced it, and stops saying "Do not drain"', () => {
    const { out } = played.get('propagation-loss')!;
    const announced = out.search(/>> \[[^\]]+\] cluster: rollback to revision 1/);
    const recovering = out.indexOf('Recovering ·');
    expect(announced).toBeGreaterThan(0);
    expect(recovering).toBeGreaterThan(announced);
    expect(out).not.toContain('(rolling back)');
    const roots = played.get('propagation-loss')!.sent.filter((m) => !m.threadTs && m.method === 'update');
    const lastOpen = roots.filter((m) => !/^Resolved/.test(m.text)).at(-1)!;
    expect(visible(lastOpen)).toContain('Wait: the rollback');
    expect(visible(lastOpen)).not.toContain('Do not drain');
  });

  it('the root carries the command that ends the incident', () => {
    const first = played.get('propagation-loss')!.sent.find((m) => !m.threadTs)!;
    expect(visible(first)).toContain('kubectl rollout undo daemonset/ebs-csi-node -n kube-system --to-revision=1');
    expect(visible(first)).not.toMatch(/FOLLOWS_ROLLOUT|kubectl apply -k|Helm/);
  });
});

describe('the node-fault story', () => {
  it('says the pods moved off the node and the node was not shown to mount again', () => {
    const { out } = played.get('node-fault')!;
    expect(out).toContain('because its stuck pods moved');
    expect(out).toContain('The node was not shown to mount again');
    expect(out).not.toContain('no member is stuck any more');
  });
});

describe('the cni-sandbox story', () => {
  it('shows a network incident without storage columns, proof or storage links', () => {
    const { out } = played.get('cni-sandbox')!;
    expect(out).toContain('Not storage');
    expect(out).not.toMatch(/revision \?|\| \?|Proof|not checked again|Runbook|Storage path/);
  });
});

describe('the fleet story', () => {
  it("narrates a cluster's rollout before its warning, and closes after the last post", () => {
    const { out } = played.get('fleet')!;
    const rollout = out.search(/>> \[[^\]]+\] prod-us-1: the ebs-csi-node upgrade starts/);
    const warning = out.indexOf('started rolling out');
    expect(rollout).toBeGreaterThan(0);
    expect(warning).toBeGreaterThan(rollout);
    const lines = out.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^rwx demo --fleet: the same change broke two clusters/);
  });
});

describe('rwx demo and Ctrl-C', () => {
  it('exits 130, as every other command', async () => {
    const bin = fileURLToPath(new URL('../../bin/rwx.js', import.meta.url));
    const child = spawn(process.execPath, [bin, 'demo', '--speed', String(SPEED)], {
      env: { ...process.env, REDIS_URL: REDIS, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const code = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('new root message')) resolve();
      }),
    );
    child.kill('SIGINT');
    expect(await code).toBe(130);
  }, 60_000);
});
