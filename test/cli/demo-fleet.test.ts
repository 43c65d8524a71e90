// `rwx demo --fleet` in-process: three simulated clusters on one Redis tell the fleet story on the terminal: the
// same bad revision breaks two clusters (the second thread links the first), the third is warned as it starts the
// same rollout, before any pod is stuck there, and a command naming one cluster, handed to another's bot, is answered
// by the cluster it names. And the one-line messages when it cannot run.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';

function captureIo(): { io: CliIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin: new PassThrough(),
    env: { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', LOG_LEVEL: 'warn' },
  };
  return { io, out: () => out, err: () => err };
}

// The roots printed, each as its first line of text (the title, or the warning's first line).
const roots = (out: string): string[] => [...out.matchAll(/new root message[^\n]*\n([^\n]*)/g)].map((m) => m[1]!);

describe('rwx demo --fleet', () => {
  it('two clusters broken by the same revision (linked), the third warned before it breaks; exits 0', async () => {
    const c = captureIo();
    const code = await main(['demo', '--fleet', '--speed', '60'], c.io);
    const out = c.out();
    expect(c.err()).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(/rwx demo --fleet: three clusters, one Redis/);
    const titles = roots(out);
    // One thread per broken cluster, each titled with its cluster.
    for (const cluster of ['staging-1', 'prod-eu-1'])
      expect(titles.filter((t) => t.startsWith(`[${cluster}] `) && t.includes('ebs-csi-node revision 2'))).toHaveLength(
        1,
      );
    // The later of the two threads links the earlier one, with the change that broke both.
    // The terminal shows what Slack renders: the link emoji, no *bold* markers.
    const link = out.match(/🔗 The same change broke (staging-1|prod-eu-1) [^\n]*/)?.[0] ?? '';
    expect(link).toContain('kubelet-dir: mountPropagation Bidirectional -> none');
    expect(link).toMatch(/its thread \(https:\/\/slack\.com\/archives\/C0FLEET\/p\d+\)/);
    // prod-us-1 gets the warning, worded for a DaemonSet, and no incident: none of its pods is stuck.
    expect(titles.filter((t) => t.includes('prod-us-1 started rolling out'))).toHaveLength(1);
    expect(out).toContain('the kube-system/ebs-csi-node change (revision 2) that broke');
    expect(out).toContain('kubectl rollout pause does not work for DaemonSets');
    expect(out).toContain('kubectl rollout undo daemonset/ebs-csi-node -n kube-system --to-revision=1');
    expect(titles.some((t) => t.startsWith('[prod-us-1] '))).toBe(false);
    expect(out).toMatch(/>> \[[\d:]+\] prod-us-1: the ebs-csi-node upgrade starts/);
    // A command about prod-eu-1, handed to staging-1's bot: acknowledged there, routed through prod-eu-1's queue in
    // Redis, and answered by prod-eu-1 (its answer says so) with the drain advice of its own cluster.
    const routed = out.slice(out.indexOf('>> typed in the channel: /rwx drain node-19 @prod-eu-1'));
    expect(routed).toMatch(
      /^>> typed in the channel: \/rwx drain node-19 @prod-eu-1 \(Slack hands it to staging-1's bot/,
    );
    const answers = routed.split(/── \[[\d:]+\] \/rwx answer, only visible to U0DEMO ─+\n/).slice(1);
    expect(answers[0]).toMatch(/^\s*⏳ Working on the drain check for node-19/);
    expect(answers[1]).toMatch(/^\s*From cluster prod-eu-1\n\s*Drain node-19: BLOCK/);
    expect(answers[1]).toContain('kubectl rollout undo daemonset/ebs-csi-node -n kube-system --to-revision=1');
    expect(out).toMatch(/a command about prod-eu-1 was answered by prod-eu-1 though Slack handed it to staging-1/);
  }, 150_000);

  it('says so in one line and exits 1 when no Redis answers', async () => {
    const c = captureIo();
    expect(await main(['demo', '--fleet', '--redis', 'redis://127.0.0.1:1'], c.io)).toBe(1);
    expect(c.err().trim().split('\n')).toHaveLength(1);
    expect(c.err()).toMatch(/no Redis answers at redis:\/\/127\.0\.0\.1:1/);
  });

  it('plays its own scenarios: --scenario is refused', async () => {
    const c = captureIo();
    expect(await main(['demo', '--fleet', '--scenario', 'scenarios/node-fault.yaml'], c.io)).toBe(1);
    expect(c.err()).toMatch(/rwx demo --fleet plays its own scenarios/);
  });
});
