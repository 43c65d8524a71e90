// The guard: advice invariants over every scenario in scenarios/, at every step of its timeline, on the outputs of
// `rwx scan`, `rwx drain-check`, the Slack root and thread and `/rwx drain` alike:
// - drain OK only for a node that holds no stuck pod of any incident, with every input read;
// - no `rollout undo` while a rollback is under way, and every undo names its revision;
// - every command in a next step or drain step parses (rwx commands with the project's own parser, stopped by
//   --help before any cluster access), and kubectl commands name objects that exist in the snapshot;
// - no volume that is not storage (Secret, ConfigMap, projected, downward API, emptyDir) in a storage incident;
// - the CLI and the bot (per-object detection, as the serve pipeline runs it) give the same incidents, verdicts,
//   counts, locations and drain decisions;
// - every incident names its layer, and the node holding the fault is the one the evidence names (the
//   VolumeAttachment's node for a fault held elsewhere, the NotReady node for a node fault); nothing is "cause
//   unknown" on a NotReady node; no step cordons a node that holds no fault; no rollback without a control group
//   (nodes on the previous revision that mount fine); no force delete; drain advice agrees with the location.
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommand, runCommand, type CommandServices } from '../../src/commands/index.js';
import { ManualClock } from '../../src/domain/clock.js';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import type { DrainAdvice, Incident } from '../../src/domain/incident.js';
import { KINDS, KIND_KEYS } from '../../src/domain/kinds.js';
import type { Snapshot } from '../../src/domain/snapshot.js';
import { storageVolumes } from '../../src/detect/storage-path.js';
import { LAYERS } from '../../src/domain/location.js';
import { notReady } from '../../src/domain/node-health.js';
import { evaluate, evaluateFindings } from '../../src/evaluate/evaluate.js';
import { renderIncidentRoot } from '../../src/render/slack-incident.js';
import { renderEvidenceReply } from '../../src/render/slack-thread.js';
import { realSync } from '../../src/pipeline/sync.js';
import { triage } from '../../src/triage/index.js';
import { loadScenario, type Simulator } from '@rwx/kube-sim';
import { rwx } from '../correlate/cli-run.js';
import { scenarioPath, simSnapshot, testSim } from '../support/sim.js';

const SCENARIOS = readdirSync(scenarioPath('x').replace(/x\.yaml$/, ''))
  .filter((f) => f.endsWith('.yaml'))
  .sort();

const UNDO = /kubectl rollout undo daemonset\/\S+/g;

/** What the walk met, so the guard is known to exercise each rule (a scenario change cannot silently skip one). */
const seen = {
  underWay: 0,
  undo: 0,
  block: 0,
  caution: 0,
  ok: 0,
  unknown: 0,
  commands: 0,
  located: 0,
  heldElsewhere: 0,
  notReady: 0,
};

/** Commands in a step: `kubectl ...` or `rwx ...`, up to the end of the clause they sit in. */
export function commandsIn(step: string): string[] {
  const out: string[] = [];
  for (const m of step.matchAll(/\b(kubectl|rwx) [^\n]*/g)) {
    const cut = m[0].search(/\)|: |, |; |\.(\s|$)| \.\.\.and /);
    out.push((cut >= 0 ? m[0].slice(0, cut) : m[0]).trim());
  }
  return out;
}

/** What a kubectl command names that the snapshot must hold ("" when it names nothing checkable). */
function missingObject(cmd: string, snap: Snapshot): string {
  const args = cmd.split(/\s+/).slice(1);
  const ns = args[args.indexOf('-n') + 1] ?? '';
  const has = (kind: keyof Snapshot, name: string, namespace?: string): boolean =>
    (snap[kind] as { metadata?: { name?: string; namespace?: string } }[]).some(
      (o) => o.metadata?.name === name && (namespace === undefined || o.metadata?.namespace === namespace),
    );
  const node = (n: string): string => (has('nodes', n) ? '' : `node ${n}`);
  const [verb, sub] = args;
  if (verb === 'cordon')
    return (
      args
        .slice(1)
        .filter((a) => !a.startsWith('-'))
        .map(node)
        .find(Boolean) ?? ''
    );
  if (verb === 'drain') return node(args[1] ?? '');
  if (verb === 'debug') return node((args[1] ?? '').replace(/^node\//, ''));
  if (verb === 'rollout') {
    const ds = (args[2] ?? '').replace(/^daemonset\//, '');
    if (!has('daemonSets', ds, ns)) return `daemonset ${ns}/${ds}`;
    const rev = /--to-revision=(\d+)/.exec(cmd)?.[1];
    const revs = snap.controllerRevisions.filter((r) => r.metadata?.namespace === ns).map((r) => String(r.revision));
    return rev && !revs.includes(rev) ? `revision ${rev} of ${ns}/${ds}` : '';
  }
  if (verb === 'describe' && sub === 'pod' && args[2] && !args[2].startsWith('-'))
    return has('pods', args[2], ns) ? '' : `pod ${ns}/${args[2]}`;
  if (verb === 'describe' && sub === 'cronjob') return has('cronJobs', args[2] ?? '', ns) ? '' : `cronjob ${args[2]}`;
  const selected = /spec\.nodeName=(\S+)/.exec(cmd)?.[1];
  return selected ? node(selected) : '';
}

/** Every problem with the commands of these steps. */
async function commandProblems(steps: readonly string[], snap: Snapshot): Promise<string[]> {
  const problems: string[] = [];
  for (const cmd of steps.flatMap(commandsIn)) {
    seen.commands++;
    if (cmd.startsWith('rwx ')) {
      const argv = cmd.split(/\s+/).slice(1);
      if ((await rwx(...argv, '--help')).code !== 0) problems.push(`does not parse: ${cmd}`);
      const nodes = /--nodes (\S+)/.exec(cmd)?.[1]?.split(',') ?? [];
      for (const n of nodes) if (!snap.nodes.some((o) => o.metadata?.name === n)) problems.push(`no node ${n}: ${cmd}`);
    } else {
      const missing = missingObject(cmd, snap);
      if (missing) problems.push(`${missing} does not exist: ${cmd}`);
    }
  }
  return problems;
}

/** The bot's incidents: per-object detection, then the same evaluation, as the serve pipeline runs it. */
function botIncidents(index: ClusterIndex, now: number): Incident[] {
  const stages = realSync({ stuckAfterMs: 5 * 60_000, cronJobGraceMs: 10 * 60_000, driverDaemonSets: {} });
  const findings = [
    ...[...index.all('pods')].flatMap((p) => stages.detectPod(index, p, now)),
    ...[...index.all('cronJobs')].flatMap((c) => stages.detectCronJob(index, c, now) ?? []),
  ];
  return evaluateFindings(index, findings, { now }).incidents;
}

/** What the CLI and the bot must agree on. */
const facts = (incidents: readonly Incident[]) =>
  incidents.map((i) => ({
    key: i.key,
    verdict: i.verdict,
    counts: i.rollout?.counts,
    pods: i.pods.map((p) => p.key).sort(),
    drain: i.drain.map((d) => [d.node, d.decision]),
    location: [i.location?.layer, i.location?.holder],
  }));

/**
 * What the bot sees of the simulator's cluster: every kind, less those the scenario forbids (its `forbid` faults),
 * which are empty and unreadable, as a live read would find them.
 */
async function botView(file: string, sim: Pick<Simulator, 'objects'>): Promise<Snapshot> {
  const snap = simSnapshot(sim);
  for (const f of (await loadScenario(file)).faults ?? []) {
    if (f.fault !== 'forbid') continue;
    const kind = KIND_KEYS.find((k) => KINDS[k].resource === f.resource);
    if (!kind) continue;
    (snap[kind] as unknown[]) = [];
    snap.unreadable.push({ kind, reason: `forbidden: ${f.resource} is forbidden` });
  }
  return snap;
}

/** The checkpoints of a scenario: offset 0, each timeline step, and a while after the last. */
async function checkpoints(file: string): Promise<number[]> {
  const at = (await loadScenario(file)).timeline.map((s) => s.atMs);
  return [...new Set([0, ...at, ...(at.length > 0 ? [Math.max(...at) + 10 * 60_000] : [])])].sort((a, b) => a - b);
}

/** Checks every invariant on one view; returns the problems found, each naming the scenario, time and node. */
async function problemsAt(where: string, snap: Snapshot, now: number): Promise<string[]> {
  const index = ClusterIndex.fromSnapshot(snap);
  const { incidents, drain, blind } = evaluate(index, { now });
  const problems: string[] = [];
  const stuckOn = new Set(incidents.flatMap((i) => i.nodes.filter((n) => n.stuckPods.length > 0).map((n) => n.node)));
  const advice: DrainAdvice[] = snap.nodes.map((n) => drain(n.metadata?.name ?? ''));
  for (const a of advice) {
    if (a.decision !== 'OK') continue;
    if (stuckOn.has(a.node)) problems.push(`${where}: drain OK on ${a.node}, which holds a stuck pod`);
    if (blind.length > 0 || (a.blind ?? []).length > 0) problems.push(`${where}: drain OK on ${a.node} while blind`);
  }
  const texts = [
    ...incidents.flatMap((i) => [
      ...i.nextSteps,
      JSON.stringify(renderIncidentRoot(i).blocks),
      JSON.stringify(renderEvidenceReply(i).blocks),
    ]),
    ...advice.flatMap((a) => [a.reason, ...a.steps]),
  ];
  const underWay = incidents.some((i) => i.rollback?.state === 'under-way');
  if (underWay) seen.underWay++;
  if (incidents.some((i) => i.rollback?.state === 'undo')) seen.undo++;
  for (const a of advice) seen[a.decision.toLowerCase() as 'block' | 'caution' | 'ok' | 'unknown']++;
  for (const undo of texts.flatMap((t) => t.match(UNDO) ?? [])) {
    if (underWay) problems.push(`${where}: "${undo}" while a rollback is under way`);
  }
  for (const t of texts) {
    for (const m of t.matchAll(/kubectl rollout undo daemonset\/\S+ -n \S+( --to-revision=\d+)?/g)) {
      if (!m[1]) problems.push(`${where}: an undo without --to-revision: ${m[0]}`);
    }
  }
  const steps = [...incidents.flatMap((i) => i.nextSteps), ...advice.flatMap((a) => a.steps)];
  problems.push(...(await commandProblems([...new Set(steps)], snap)).map((p) => `${where}: ${p}`));
  for (const i of incidents.filter((x) => x.verdict !== 'NOT_STORAGE')) {
    for (const f of i.pods) {
      const pod = index.get('pods', `${f.pod.namespace}/${f.pod.name}`);
      const storage = new Set(pod ? storageVolumes(pod).map((v) => v.name) : []);
      for (const s of f.storage)
        if (pod && !storage.has(s.volume)) problems.push(`${where}: ${i.key} blames volume ${s.volume} of ${f.key}`);
    }
  }
  problems.push(...locationProblems(where, index, incidents, advice, texts));
  // The CLI (a snapshot file, as a user would save it) and the bot agree.
  const cli = await rwx('scan', '--snapshot', snapshotFile(snap), '--now', new Date(now).toISOString(), '-o', 'json');
  const fromCli = (JSON.parse(cli.stdout) as { incidents: Incident[] }).incidents;
  const bot = botIncidents(index, now);
  if (JSON.stringify(facts(fromCli)) !== JSON.stringify(facts(bot)))
    problems.push(
      `${where}: rwx scan and the bot disagree:\n${JSON.stringify(facts(fromCli))}\n${JSON.stringify(facts(bot))}`,
    );
  if (JSON.stringify(facts(incidents)) !== JSON.stringify(facts(bot)))
    problems.push(`${where}: evaluate() and the bot disagree`);
  // drain-check and /rwx drain give the decision the incidents carry, for every node holding a stuck pod.
  const svc: CommandServices = {
    clock: new ManualClock(now),
    cluster: { index: () => index },
    triage,
    evaluate: (idx, at) => evaluate(idx, { now: at }),
    openIncidents: async () => [],
  };
  for (const node of [...stuckOn].filter((n) => n !== '(unscheduled)').slice(0, 4)) {
    const want = drain(node).decision;
    const { response } = await runCommand(parseCommand(`drain ${node}`), svc);
    if (!response.text.includes(`*${want}*`)) problems.push(`${where}: /rwx drain ${node} is not ${want}`);
  }
  return problems;
}

/** The location invariants (see the file comment) over one evaluation's incidents, drain advice and texts. */
function locationProblems(
  where: string,
  index: ClusterIndex,
  incidents: readonly Incident[],
  advice: readonly DrainAdvice[],
  texts: readonly string[],
): string[] {
  const problems: string[] = [];
  const down = new Set(
    [...index.all('nodes')].filter((n) => notReady(index, n.metadata?.name)).map((n) => n.metadata?.name ?? ''),
  );
  const holders = new Set(incidents.flatMap((i) => (i.location?.holder ? [i.location.holder] : [])));
  const onNew = new Set(incidents.flatMap((i) => i.rollout?.nodesOnNewRevision ?? []));
  for (const i of incidents) {
    seen.located++;
    const loc = i.location;
    if (!loc || !LAYERS.includes(loc.layer)) problems.push(`${where}: ${i.key} names no layer`);
    if (loc?.layer === 'unknown' && i.verdict !== 'UNEXPLAINED')
      problems.push(`${where}: ${i.key} is ${i.verdict} at an unknown layer`);
    if (loc?.holder && !index.get('nodes', loc.holder))
      problems.push(`${where}: ${i.key} held by ${loc.holder}, no such node`);
    for (const f of i.pods) {
      const pl = f.location;
      if (f.node && down.has(f.node) && i.key !== `node/${f.node}`)
        problems.push(`${where}: ${f.key} on NotReady ${f.node} is in ${i.key}, not the node's incident`);
      if (pl?.holder && pl.holder !== f.node) {
        seen.heldElsewhere++;
        const vaNodes = f.storage.flatMap((s) =>
          s.pv ? index.attachmentsForPv(s.pv).map((v) => v.spec?.nodeName) : [],
        );
        if (!vaNodes.includes(pl.holder))
          problems.push(`${where}: ${f.key} held by ${pl.holder}, no VolumeAttachment says so`);
        if (loc?.holder !== pl.holder)
          problems.push(`${where}: ${f.key} held by ${pl.holder} but ${i.key} by ${loc?.holder}`);
      }
    }
    if (loc?.holder && down.has(loc.holder)) seen.notReady++;
    const undo = i.nextSteps.some((s) => UNDO.test(s));
    UNDO.lastIndex = 0;
    if (undo && !(i.rollout && i.rollout.counts.oldFine > 0))
      problems.push(`${where}: ${i.key} advises an undo with no control group`);
  }
  for (const t of texts) {
    for (const cmd of commandsIn(t).filter((c) => c.startsWith('kubectl cordon ')))
      for (const n of cmd
        .split(/\s+/)
        .slice(2)
        .filter((a) => !a.startsWith('-')))
        if (!holders.has(n) && !onNew.has(n)) problems.push(`${where}: cordons ${n}, which holds no fault`);
    if (
      /kubectl delete pod[^.]*--force|--grace-period=0/.test(t) &&
      !/[Nn]ever force-delete \(--grace-period=0/.test(t)
    )
      problems.push(`${where}: a force delete: ${t.slice(0, 120)}`);
    for (const n of down)
      if (new RegExp(`rwx gate [^\n]*--nodes [^ ]*\\b${n}\\b|Find what holds the mount on ${n}\\b`).test(t))
        problems.push(`${where}: a step runs on NotReady ${n}`);
  }
  for (const a of advice) {
    const held = incidents.filter(
      (i) =>
        i.location?.holder &&
        i.location.holder !== a.node &&
        i.nodes.some((n) => n.node === a.node && n.stuckPods.length > 0),
    );
    if (held.length > 0 && new RegExp(`the fault follows ${a.node}\\b`).test(a.reason))
      problems.push(
        `${where}: drain of ${a.node} blames it while ${held.map((i) => i.location?.holder).join(', ')} holds the fault`,
      );
  }
  return problems;
}

/** A snapshot saved as `kubectl get --raw` lists do it: one typed List per kind, so an empty kind is known empty. */
function snapshotFile(snap: Snapshot): string {
  const dir = mkdtempSync(join(tmpdir(), 'rwx-guard-'));
  const file = join(dir, 'snapshot.json');
  const unread = new Set(snap.unreadable.map((u) => u.kind));
  const lists = KIND_KEYS.filter((k) => !unread.has(k)).map((k) =>
    JSON.stringify({ kind: `${KINDS[k].kind}List`, apiVersion: 'v1', items: snap[k] }),
  );
  writeFileSync(file, lists.join('\n'));
  return file;
}

describe('advice invariants on every scenario in scenarios/', () => {
  it('finds the scenarios', () => {
    expect(SCENARIOS).toContain('propagation-loss.yaml');
    expect(SCENARIOS.length).toBeGreaterThanOrEqual(5);
  });

  it.each(SCENARIOS)('%s: at every step of its timeline', async (file) => {
    const path = scenarioPath(file);
    const { sim } = await testSim(path);
    const problems: string[] = [];
    let at = 0;
    for (const t of await checkpoints(path)) {
      if (t > at) await sim.advance(t - at);
      at = t;
      problems.push(...(await problemsAt(`${file} +${t / 60_000}m`, await botView(path, sim), sim.now())));
    }
    expect(problems).toEqual([]);
  });

  it.each(SCENARIOS)('%s: blind (attachments unreadable), no node is OK', async (file) => {
    const { sim } = await testSim(scenarioPath(file));
    const snap = simSnapshot(sim);
    snap.unreadable.push({ kind: 'volumeAttachments', reason: 'forbidden: list denied' });
    const { drain } = evaluate(ClusterIndex.fromSnapshot(snap), { now: sim.now() });
    const advice = snap.nodes.map((n) => drain(n.metadata?.name ?? ''));
    seen.unknown += advice.filter((a) => a.decision === 'UNKNOWN').length;
    expect(advice.filter((a) => a.decision === 'OK').map((a) => a.node)).toEqual([]);
  });

  it('the walk met every rule: an undo, a rollback under way, BLOCK, CAUTION, OK, UNKNOWN, commands, locations', () => {
    expect(Object.entries(seen).filter(([, n]) => n === 0)).toEqual([]);
  });
});

describe('the scenarios made for these rules', () => {
  /** One evaluation of a scenario at offset 0, as the bot sees it. */
  async function at0(name: string) {
    const { sim } = await testSim(scenarioPath(name));
    return evaluate(ClusterIndex.fromSnapshot(await botView(scenarioPath(name), sim)), { now: sim.now() });
  }

  it('rollback-under-way: a rollback to revision 3 under way, rollout status, nodes on revision 2 BLOCK', async () => {
    const { incidents, drain } = await at0('rollback-under-way');
    expect(incidents.map((i) => [i.key, i.rollback?.state, i.rollback?.toRevision])).toEqual([
      ['rollout/kube-system/ebs-csi-node@2', 'under-way', 3],
    ]);
    expect([drain('node-1').decision, drain('node-3').decision]).toEqual(['BLOCK', 'OK']);
  });

  it('same-node-unexplained: UNEXPLAINED, and node-3 that holds its pod is CAUTION', async () => {
    const { incidents, drain } = await at0('same-node-unexplained');
    expect(incidents.map((i) => i.verdict)).toEqual(['UNEXPLAINED']);
    expect([drain('node-3').decision, drain('node-6').decision]).toEqual(['CAUTION', 'OK']);
  });

  it('backup-fails-nightly: the CronJob whose runs fail while a run is Running is reported, failures and run said', async () => {
    const { incidents } = await at0('backup-fails-nightly');
    expect(incidents.map((i) => [i.key, i.verdict])).toEqual([['cronjob/shop/db-backup', 'UNEXPLAINED']]);
    const [c] = incidents[0]!.cronJobs;
    expect([c?.missedRuns, c?.jobs.filter((j) => j.failureReason === 'DeadlineExceeded').length, c?.storage]).toEqual([
      3,
      3,
      true,
    ]);
    expect(c?.inProgress).toEqual({ job: 'db-backup-29411640', since: '2026-11-30T02:00:00.000Z', overdue: false });
  });

  it('blind: events and attachments unreadable, so node-6 (OK with full access) is UNKNOWN', async () => {
    const { blind, drain } = await at0('blind');
    expect(blind.map((b) => b.kind)).toEqual(['events', 'volumeAttachments']);
    expect([drain('node-3').decision, drain('node-6').decision]).toEqual(['UNKNOWN', 'UNKNOWN']);
  });
});
