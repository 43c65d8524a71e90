// Resolving the kubeconfig as kubectl does: KUBECONFIG's files merged (the cluster of the current context may be in
// the second file), first definition and first current-context win, missing files skipped; a file that is not a
// kubeconfig says so; the context's namespace is the default of `rwx diff`. Against the simulator over real HTTP.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { CliIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { isRwxError } from '../../src/errors.js';
import { connect } from '../../src/kube/connect.js';
import { scenarioPath, testSim } from '../support/sim.js';

const dir = mkdtempSync(join(tmpdir(), 'rwx-kubeconfig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Kubeconfig {
  clusters: { name: string; cluster: { server: string } }[];
  users: { name: string; user: Record<string, unknown> }[];
  contexts: { name: string; context: { cluster: string; user: string; namespace?: string } }[];
  'current-context'?: string;
}

let n = 0;
function write(doc: Partial<Kubeconfig> | string): string {
  const f = join(dir, `config-${++n}`);
  writeFileSync(f, typeof doc === 'string' ? doc : stringify({ apiVersion: 'v1', kind: 'Config', ...doc }));
  return f;
}

/** The simulator's kubeconfig split in two: the current context and its user in one file, the cluster in another. */
async function splitSim(namespace?: string): Promise<{ contexts: string; clusters: string; server: string }> {
  const { sim } = await testSim(scenarioPath('propagation-loss'));
  const kc = parse(readFileSync(sim.kubeconfigPath, 'utf8')) as Kubeconfig;
  const ctx = kc.contexts[0]!;
  if (namespace) ctx.context.namespace = namespace;
  return {
    contexts: write({ contexts: [ctx], users: kc.users, 'current-context': ctx.name }),
    clusters: write({ clusters: kc.clusters }),
    server: kc.clusters[0]!.cluster.server,
  };
}

async function configError(opts: Parameters<typeof connect>[0]): Promise<string> {
  try {
    await connect(opts);
  } catch (e) {
    if (!isRwxError(e, 'CONFIG')) throw e;
    return e.message;
  }
  throw new Error('expected a CONFIG error');
}

async function rwx(argv: string[], env: NodeJS.ProcessEnv) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: Readable.from([]),
    env,
  };
  return { code: await main(argv, io), stdout, stderr };
}

describe('connect: KUBECONFIG with several files', () => {
  it("finds the current context's cluster in the second file, and talks to it", async () => {
    const s = await splitSim('kube-system');
    const missing = join(dir, 'does-not-exist');
    const conn = await connect({ env: { KUBECONFIG: [missing, s.contexts, s.clusters].join(delimiter) } });
    expect(conn.server).toBe(s.server.replace(/\/+$/, ''));
    expect(conn.namespace).toBe('kube-system');
    // the user (token) of the first file and the cluster of the second, together
    expect((await conn.request('GET', '/api/v1/nodes?limit=1')).status).toBe(200);
  });

  it("rwx serve's configured KUBECONFIG list is merged the same way (connect's kubeconfig holding the list)", async () => {
    const s = await splitSim('kube-system');
    const list = [join(dir, 'does-not-exist'), s.contexts, s.clusters].join(delimiter);
    const conn = await connect({ kubeconfig: list, env: {} });
    expect([conn.server, conn.namespace]).toEqual([s.server.replace(/\/+$/, ''), 'kube-system']);
    expect((await conn.request('GET', '/api/v1/nodes?limit=1')).status).toBe(200);
    const none = [join(dir, 'x'), join(dir, 'y')].join(delimiter);
    expect(await configError({ kubeconfig: none, env: {} })).toMatch(/^kubeconfig names no file that exists/);
  });

  it('lets the first file win: its current-context, and its definition of a name', async () => {
    const first = write({
      clusters: [{ name: 'c', cluster: { server: 'http://127.0.0.1:1/first' } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'a', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'a',
    });
    const second = write({
      clusters: [{ name: 'c', cluster: { server: 'http://127.0.0.1:1/second' } }],
      contexts: [{ name: 'b', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'b',
    });
    const conn = await connect({ env: { KUBECONFIG: `${first}${delimiter}${second}` } });
    expect([conn.context, conn.server]).toEqual(['a', 'http://127.0.0.1:1/first']);
    // a context only the second file defines is found with --context
    expect((await connect({ env: { KUBECONFIG: `${first}${delimiter}${second}` }, context: 'b' })).context).toBe('b');
  });

  it.each([
    // a file that is not YAML with clusters/contexts/users
    { name: '/etc/passwd', file: () => '/etc/passwd', msg: /^\/etc\/passwd is not a kubeconfig \(expected YAML/ },
    // a Kubernetes manifest is YAML, but not a kubeconfig
    { name: 'a manifest', file: () => write('kind: Pod\nmetadata:\n  name: x\n'), msg: /is not a kubeconfig/ },
    // a missing --kubeconfig
    { name: 'missing', file: () => join(dir, 'nope'), msg: /^cannot read kubeconfig .*nope: no such file$/ },
  ])('--kubeconfig $name says what is wrong', async ({ file, msg }) => {
    expect(await configError({ kubeconfig: file(), env: {} })).toMatch(msg);
  });

  it('says when no file KUBECONFIG names exists', async () => {
    expect(await configError({ env: { KUBECONFIG: join(dir, 'a') } })).toMatch(/^KUBECONFIG names no file that exists/);
  });

  it('rwx triage --kubeconfig /etc/passwd is one line, exit 1', async () => {
    const r = await rwx(['triage', '--kubeconfig', '/etc/passwd'], {});
    expect([r.code, r.stderr]).toEqual([
      1,
      'rwx triage: /etc/passwd is not a kubeconfig (expected YAML with clusters, contexts and users)\n',
    ]);
  });
});

describe("rwx diff: the context's namespace is the default", () => {
  it('looks in the namespace the context names, as kubectl would; -n and -A override it', async () => {
    const s = await splitSim('default');
    const env = { KUBECONFIG: `${s.contexts}${delimiter}${s.clusters}` };
    const inDefault = await rwx(['diff', 'daemonset/ebs-csi-node'], env);
    expect([inDefault.code, inDefault.stderr]).toEqual([
      1,
      "rwx diff: daemonset default/ebs-csi-node not found (the kubeconfig context's namespace; -n NS or -A to look elsewhere)\n",
    ]);
    const named = await rwx(['diff', 'daemonset/ebs-csi-node', '-n', 'kube-system'], env);
    expect([named.code, named.stdout]).toEqual([
      0,
      expect.stringMatching(/^daemonset kube-system\/ebs-csi-node revision 1 -> 2/),
    ]);
    const all = await rwx(['diff', 'daemonset/ebs-csi-node', '-A'], env);
    expect(all.code).toBe(0);
    const both = await rwx(['diff', 'daemonset/ebs-csi-node', '-A', '-n', 'x'], env);
    expect(both.stderr).toMatch(/^rwx diff: -A \(every namespace\) and -n NAMESPACE contradict each other/);
  });
});
