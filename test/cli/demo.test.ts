// `rwx demo` in-process: the whole story (root posted once, edited, resolved in the thread) and the one-line
// message when no Redis answers.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';

function captureIo(env: NodeJS.ProcessEnv = {}): { io: CliIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    stdin: new PassThrough(),
    env: { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', LOG_LEVEL: 'warn', ...env },
  };
  return { io, out: () => out, err: () => err };
}

describe('rwx demo', () => {
  it('plays the propagation-loss story to its resolution and exits 0', async () => {
    const c = captureIo();
    const code = await main(['demo', '--speed', '120'], c.io);
    const out = c.out();
    expect(c.err()).toBe('');
    expect(code).toBe(0);
    // The rollout incident's root is posted once (then edited in place).
    expect(out.match(/new root message[^\n]*\n[^\n]*ebs-csi-node revision 2/g)).toHaveLength(1);
    expect(out).toMatch(/root \S+ edited/);
    expect(out).toMatch(/Resolved/);
    expect(out).toMatch(/demo timers: group_wait 2s/);
    expect(out).toMatch(/kubectl rollout undo daemonset\/ebs-csi-node -n kube-system/);
    // The FAKE agents' proof, labelled as such, turns the correlation into proof; the recovery checks it again.
    expect(out).toMatch(/node agents: SIMULATED, fake reports/);
    expect(out).toMatch(/Proof from the nodes: propagation lost on \d+ of \d+ nodes? checked \(SIMULATED agent/);
    expect(out).toContain(
      "(simulated agent) node-19: the node plugin's mount namespace holds 2 CSI mounts under /var/lib/kubelet that the host cannot see: propagation lost",
    );
    expect(out).toMatch(/Checked again from the nodes: the mounts are visible from the host on \d+ nodes checked/);
  }, 120_000);

  it('says so in one line and exits 1 when no Redis answers', async () => {
    const c = captureIo();
    const code = await main(['demo', '--redis', 'redis://127.0.0.1:1'], c.io);
    expect(code).toBe(1);
    expect(c.err().trim().split('\n')).toHaveLength(1);
    expect(c.err()).toMatch(/no Redis answers at redis:\/\/127\.0\.0\.1:1/);
  });

  it('rejects a bad --speed', async () => {
    const c = captureIo();
    expect(await main(['demo', '--speed', 'fast'], c.io)).toBe(1);
    expect(c.err()).toMatch(/--speed: fast is not a number above 0/);
  });
});
