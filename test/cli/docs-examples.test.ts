// The docs' examples stay true: every `$ ... rwx ...` line in a code block of docs/*.md is either run here, as a
// shell runs it (the built bin/rwx.js as `rwx`, in a directory holding the files it names, against the simulator
// when it reads a cluster), and its output block and `$ echo $?` compared with what it prints; or listed below with
// why it is not (a new example must be added to one or the other). Needs `npm run build`. The policy examples read
// upstream CSI manifests: they run as an upstream conformance block (test/policy/manifests.ts), skipped, saying so,
// where the manifests are absent.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { describeUpstream, readManifest, withoutOnePropagationLine } from '../policy/manifests.js';
import { scenarioPath, testSim } from '../support/sim.js';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/rwx.js', import.meta.url));

/** One example: the command after `$ `, the lines it prints, and the exit code `$ echo $?` shows after it. */
interface Example {
  key: string;
  command: string;
  output: string;
  exit?: number;
}

/** The examples of one Markdown text: `$ ` lines in fenced blocks that run rwx, with the lines up to the next `$ `. */
function examplesOf(doc: string, md: string): Example[] {
  const out: Example[] = [];
  let inBlock = false;
  let current: Example | undefined;
  let last: Example | undefined;
  const flush = () => {
    if (current) out.push(current);
    current = undefined;
  };
  for (const line of md.split('\n')) {
    if (/^\s*```/.test(line)) {
      if (inBlock) flush();
      inBlock = !inBlock;
      last = undefined;
      continue;
    }
    if (!inBlock) continue;
    if (line.startsWith('$ ')) {
      flush();
      const command = line.slice(2).trim();
      if (command === 'echo $?') continue;
      if (/(^|[\s|;&])rwx\s/.test(command)) current = last = { key: `${doc}: ${command}`, command, output: '' };
      continue;
    }
    if (current) current.output += `${line}\n`;
    else if (last && /^\d+$/.test(line.trim()) && last.exit === undefined) last.exit = Number(line.trim());
  }
  return out;
}

const manifest = (name: string) => () => readManifest(name);
const EBS = 'kubernetes-sigs__aws-ebs-csi-driver__deploy__kubernetes__base__node.yaml';
const ebsWithoutPropagation = () => withoutOnePropagationLine(readManifest(EBS))[0]!.text;

/** The files the examples name, as the docs name them (upstream manifests; one with its Bidirectional line lost). */
const FILES: Record<string, () => string> = {
  'ebs-node.yaml': manifest(EBS),
  'hostpath.yaml': manifest(
    'kubernetes-csi__csi-driver-host-path__deploy__kubernetes-1.30__hostpath__csi-hostpath-plugin.yaml',
  ),
  'smb-windows.yaml': manifest('kubernetes-csi__csi-driver-smb__deploy__csi-smb-node-windows.yaml'),
  'ebs-node-v1.31.0.yaml': ebsWithoutPropagation,
  'powerstore-node.yaml': manifest('dell__csi-powerstore__helm__csi-powerstore__templates__node.yaml'),
};

/** How an example runs: extra environment, and the scenario of the cluster it reads. */
type Run = { env?: Record<string, string>; cluster?: string } | { skip: string };

const GATE = 'probe timings and run ids differ per run; test/gate runs the gate end to end';
const COMMIT = { RWX_COMMIT: '0123456789abcdef0123456789abcdef01234567' };

/** Every example in docs/*.md, by "doc: command". */
const RUNS: Record<string, Run> = {
  'configuration.md: RWX_GROUP_WAIT="5 minutes" rwx config check': {},
  'metrics.md: rwx version': { env: COMMIT },
  'metrics.md: rwx version -o json': { env: COMMIT },
  'policy.md: rwx policy check -f ebs-node.yaml -f hostpath.yaml -f smb-windows.yaml': {},
  'policy.md: rwx policy check -f ebs-node-v1.31.0.yaml': {},
  'policy.md: rwx policy check --cluster': { cluster: 'gate-one-broken-node' },
  'policy.md: rwx policy check -f powerstore-node.yaml': {},
  'policy.md: helm template csi-powerstore dell/csi-powerstore | rwx policy check -f -': {
    skip: 'needs helm and the chart repository',
  },
  'policy.md: rwx policy check -f - -o json < ebs-node-v1.31.0.yaml': {},
  'gate.md: rwx gate --storage-class ebs-gp3 --timeout 20s --kubeconfig /tmp/rwx-sim-XXXXXX/kubeconfig': { skip: GATE },
  'gate.md: rwx gate --storage-class ebs-gp3 --nodes gate-node-2,gate-node-5': { skip: GATE },
  'gate.md: rwx gate --storage-class ebs-gp3 --nodes gate-node-3,gate-node-1     # Ctrl-C after ~10s': { skip: GATE },
  'gate.md: rwx gate --cleanup': { skip: GATE },
};

const all = readdirSync(DOCS)
  .filter((f) => f.endsWith('.md'))
  .sort()
  .flatMap((f) => examplesOf(f, readFileSync(join(DOCS, f), 'utf8')));

const dir = mkdtempSync(join(tmpdir(), 'rwx-docs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A directory with `rwx` (the built CLI) to put first on PATH. */
function shim(): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'rwx'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'rwx'), 0o755);
  return bin;
}

/** Lines without trailing blanks (Markdown keeps none), and no trailing empty lines. */
const lines = (text: string) => text.replace(/[ \t]+$/gm, '').replace(/\n+$/, '');

const runnable = all.filter((e) => !('skip' in (RUNS[e.key] ?? { skip: '' })));
/** Whether an example names one of the upstream manifest files. */
const needsUpstream = (e: (typeof all)[number]) => Object.keys(FILES).some((name) => e.command.includes(name));

describe('docs examples', () => {
  it('every example in docs/*.md is run here or says why not, and no entry is stale', () => {
    expect(all.map((e) => e.key).sort()).toEqual(Object.keys(RUNS).sort());
  });

  it.each(runnable.filter((e) => !needsUpstream(e)).map((e) => [e.key, e] as const))('%s', async (_, e) => {
    await runExample(e);
  });
});

describeUpstream('docs examples on the upstream CSI manifests', () => {
  it.each(runnable.filter(needsUpstream).map((e) => [e.key, e] as const))('%s', async (_, e) => {
    await runExample(e);
  });
});

/** Runs one example as a shell would and compares its output and exit code with the doc's. */
async function runExample(e: (typeof all)[number]): Promise<void> {
  const run = RUNS[e.key] as Exclude<Run, { skip: string }>;
  for (const [name, text] of Object.entries(FILES))
    if (e.command.includes(name)) writeFileSync(join(dir, name), text());
  const env: NodeJS.ProcessEnv = { PATH: `${shim()}:${process.env.PATH}`, HOME: dir, ...run.env };
  if (run.cluster) env.KUBECONFIG = (await testSim(scenarioPath(run.cluster))).sim.kubeconfigPath;
  // Asynchronous: the simulator answers from this process.
  const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn('sh', ['-c', `${e.command} 2>&1`], { cwd: dir, env });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code: number | null) => resolve({ code, out }));
  });
  if (e.output.trimStart().startsWith('{')) expect(JSON.parse(r.out)).toEqual(JSON.parse(e.output));
  else expect(lines(r.out)).toBe(lines(e.output));
  if (e.exit !== undefined) expect(r.code).toBe(e.exit);
}
