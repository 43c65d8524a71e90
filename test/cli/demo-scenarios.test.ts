// Every shipped scenario either plays to its end with `rwx demo --scenario` (exit 0, every incident resolved), or
// scenarios/README.md says it is a cluster to run other commands against, not a demo story. A new file in
// scenarios/ fails here until it is one or the other.
import { readdirSync, readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';

/** Scenarios whose story ends with every incident resolved (propagation-loss: test/cli/demo.test.ts). */
const STORIES = ['node-fault.yaml', 'cni-sandbox.yaml', 'selinux-fsgroup.yaml'];
const FILES = readdirSync('scenarios').filter((f) => f.endsWith('.yaml'));
const README = readFileSync('scenarios/README.md', 'utf8');

function captureIo(): { io: CliIo; out: () => string } {
  let out = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (out += s) },
    stdin: new PassThrough(),
    env: { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', LOG_LEVEL: 'warn' },
  };
  return { io, out: () => out };
}

describe('scenarios/', () => {
  it.each(FILES)('%s is a demo story or documented as not one', (f) => {
    const documented = new RegExp(`\\| \`${f.replace('.', '\\.')}\` \\|[^\\n]*not a \`rwx demo\` story`).test(README);
    expect(STORIES.includes(f) || f === 'propagation-loss.yaml' || documented).toBe(true);
  });

  it.each(STORIES)(
    'rwx demo --scenario scenarios/%s plays to its end',
    async (f) => {
      const c = captureIo();
      const code = await main(['demo', '--scenario', `scenarios/${f}`, '--speed', '120'], c.io);
      expect(c.out()).toMatch(/rwx demo: every incident is resolved/);
      expect(code).toBe(0);
    },
    150_000,
  );
});
