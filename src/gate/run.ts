// The gate run: for each selected node, a probe pod and a fresh claim; wait for the probe to finish or time out;
// delete both whatever happened. Nodes run with bounded concurrency. An abort (Ctrl-C) stops new probes, ends the
// waiting ones as "interrupted" and still deletes everything; a final sweep by run label catches any object whose
// create response was lost.
import { RwxError, isRwxError } from '../errors.js';
import type { Clock } from '../domain/clock.js';
import type { KubeEvent, Pod } from '../domain/objects.js';
import { eventCount, eventLastSeen, eventMessage } from '../detect/events.js';
import type { GateKube } from './kube.js';
import { probeClaim, probeName, probePod, type ProbeSpec } from './objects.js';
import { MANAGED_BY, MANAGED_BY_LABEL, RUN_LABEL, selectNodes, stepsOf, type Step } from './plan.js';

/** Everything a run needs to know. `timeoutMs` is per node: how long one probe may take from create to exit. */
export interface GateOptions {
  storageClass: string;
  namespace: string;
  nodes?: string[];
  timeoutMs: number;
  parallel: number;
  image: string;
  size: string;
  accessMode: string;
  runId: string;
  pollMs: number;
}

/** The run's collaborators. `sleep` resolves early when `signal` aborts. */
export interface GateDeps {
  kube: GateKube;
  clock: Clock;
  sleep(ms: number): Promise<void>;
  signal: AbortSignal;
  /** One line per finished node, as it happens (the CLI prints these to stderr). */
  progress?(line: string): void;
}

/** The outcome for one node. */
export interface NodeResult {
  node: string;
  result: 'ok' | 'FAIL' | 'skipped' | 'interrupted' | 'not run';
  mounted: Step;
  wrote: Step;
  readBack: Step;
  /** Time from creating the probe to its end; absent when it never started. */
  durationMs?: number;
  detail: string;
}

/** The whole run. `leftovers` names objects whose delete failed (run `rwx gate --cleanup`). */
export interface GateReport {
  runId: string;
  storageClass: string;
  namespace: string;
  results: NodeResult[];
  interrupted: boolean;
  deleted: string[];
  leftovers: string[];
}

/** Runs the gate. Throws RwxError only before anything was created (unknown class, node, API down). */
export async function runGate(opts: GateOptions, deps: GateDeps): Promise<GateReport> {
  const sc = await deps.kube.getStorageClass(opts.storageClass);
  if (!sc) throw new RwxError('NOT_FOUND', `storage class "${opts.storageClass}" not found`);
  const selection = selectNodes(await deps.kube.listNodes(), opts.nodes);
  if (selection.test.length === 0) throw new RwxError('NOT_FOUND', 'no schedulable (Ready, uncordoned) node to test');

  const report: GateReport = {
    runId: opts.runId,
    storageClass: opts.storageClass,
    namespace: opts.namespace,
    results: [],
    interrupted: false,
    deleted: [],
    leftovers: [],
  };
  const waitForFirstConsumer = sc.volumeBindingMode === 'WaitForFirstConsumer';
  const results = await probeAll(selection.test, waitForFirstConsumer, opts, deps, report);
  await sweep(opts, deps, report);
  report.interrupted = deps.signal.aborted;
  report.results = [...results, ...selection.skipped.map((s) => untested(s.node, 'skipped', s.reason))];
  return report;
}

/**
 * Probes `nodes`, at most `parallel` at a time, telling `progress` of each as it ends; after an abort no probe
 * starts, and a node never probed is 'not run'. Results are in the order of `nodes`.
 */
async function probeAll(
  nodes: readonly string[],
  waitForFirstConsumer: boolean,
  opts: GateOptions,
  deps: GateDeps,
  report: GateReport,
): Promise<NodeResult[]> {
  const results = nodes.map((node) => untested(node, 'not run', ''));
  let next = 0;
  const worker = async () => {
    while (next < nodes.length && !deps.signal.aborted) {
      const index = next++;
      const spec: ProbeSpec = {
        runId: opts.runId,
        index,
        node: nodes[index] ?? '',
        namespace: opts.namespace,
        storageClass: opts.storageClass,
        accessMode: opts.accessMode,
        size: opts.size,
        image: opts.image,
        deadlineSeconds: Math.ceil(opts.timeoutMs / 1000) + 60,
        selectedNode: waitForFirstConsumer,
      };
      const r = await probeNode(spec, opts, deps, report);
      results[index] = r;
      deps.progress?.(
        `${r.node}: ${r.result}${r.durationMs === undefined ? '' : ` in ${formatTaken(r.durationMs)}`}${r.detail ? ` (${r.detail})` : ''}`,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.parallel, nodes.length)) }, worker));
  return results;
}

/** The row of a node no probe ran on (skipped, or not run before an abort): every step '-'. */
function untested(node: string, result: 'skipped' | 'not run', detail: string): NodeResult {
  return { node, result, mounted: '-', wrote: '-', readBack: '-', detail };
}

async function probeNode(spec: ProbeSpec, opts: GateOptions, deps: GateDeps, report: GateReport): Promise<NodeResult> {
  const { kube, clock } = deps;
  const ns = spec.namespace;
  const name = probeName(spec);
  const start = clock.now();
  const base = { node: spec.node, mounted: '-' as Step, wrote: '-' as Step, readBack: '-' as Step };
  let podCreated = false;
  let claimCreated = false;
  try {
    const pod = await kube.createPod(ns, probePod(spec));
    podCreated = true;
    await kube.createClaim(ns, probeClaim(spec, pod.metadata?.uid ?? ''));
    claimCreated = true;
    for (;;) {
      const cur = await kube.getPod(ns, name);
      const elapsed = clock.now() - start;
      if (!cur) return { ...base, result: 'FAIL', durationMs: elapsed, detail: 'probe pod disappeared' };
      const done = finished(cur);
      if (done)
        return {
          ...base,
          ...stepsOf(done.exitCode),
          result: done.exitCode === 0 ? 'ok' : 'FAIL',
          durationMs: elapsed,
          detail: done.detail,
        };
      if (deps.signal.aborted)
        return { ...base, result: 'interrupted', durationMs: elapsed, detail: 'interrupted before the probe finished' };
      if (elapsed >= opts.timeoutMs) {
        return {
          ...base,
          mounted: 'no',
          result: 'FAIL',
          durationMs: elapsed,
          detail: await whyStuck(kube, ns, name, cur, opts.timeoutMs),
        };
      }
      await deps.sleep(opts.pollMs);
    }
  } catch (e) {
    let msg = e instanceof Error ? e.message : String(e);
    // A 404 on create means the namespace is missing: say how to get it rather than just echoing the API.
    if (!podCreated && isRwxError(e, 'NOT_FOUND'))
      msg += ` (create it with kubectl apply -k deploy/gate, or pass --namespace)`;
    return { ...base, result: 'FAIL', durationMs: clock.now() - start, detail: msg };
  } finally {
    if (podCreated) await remove(report, `pod/${name}`, () => kube.deletePod(ns, name));
    if (claimCreated) await remove(report, `persistentvolumeclaim/${name}`, () => kube.deleteClaim(ns, name));
  }
}

/** The end of a probe pod, if it has ended: exit code (undefined when the container never ran) and a detail. */
function finished(pod: Pod): { exitCode: number | undefined; detail: string } | undefined {
  const phase = pod.status?.phase;
  if (phase !== 'Succeeded' && phase !== 'Failed') return undefined;
  const term = pod.status?.containerStatuses?.find((c) => c.name === 'probe')?.state?.terminated;
  const exitCode = term?.exitCode ?? (phase === 'Succeeded' ? 0 : undefined);
  if (exitCode === 0) return { exitCode, detail: '' };
  const reason = term?.reason ?? pod.status?.reason ?? phase;
  const what =
    exitCode === 3
      ? 'the volume is not a mount inside the pod'
      : exitCode === 4
        ? 'write failed'
        : exitCode === 5
          ? 'read-back mismatch'
          : exitCode === undefined
            ? 'the probe never ran'
            : `probe exited ${exitCode}`;
  return { exitCode, detail: `${what} (${reason})` };
}

/** Why a probe is still not done at the timeout, from the claim's phase and the pod's events. */
async function whyStuck(kube: GateKube, ns: string, name: string, pod: Pod, timeoutMs: number): Promise<string> {
  const after = `after ${formatTaken(timeoutMs)}`;
  const claim = await kube.getClaim(ns, name).catch(() => undefined);
  if (claim && claim.status?.phase !== 'Bound') {
    const ev = latest(await kube.eventsFor(ns, name).catch(() => []));
    return `claim ${claim.status?.phase ?? 'Pending'} ${after}${ev ? `: ${ev.reason}: ${eventMessage(ev)}` : ''}`;
  }
  const waiting = pod.status?.containerStatuses?.[0]?.state?.waiting?.reason ?? pod.status?.phase ?? 'Pending';
  const events = (await kube.eventsFor(ns, name).catch(() => [])).filter((e) => e.type === 'Warning');
  const ev = latest(events);
  if (!ev) return `${waiting} ${after}, no warning events`;
  const n = eventCount(ev);
  const count = n > 1 ? ` (x${n})` : '';
  return `${waiting} ${after}: ${ev.reason}${count}: ${eventMessage(ev)}`;
}

function latest(events: KubeEvent[]): KubeEvent | undefined {
  const t = (e: KubeEvent) => eventLastSeen(e) ?? 0;
  return [...events].sort((a, b) => t(b) - t(a))[0];
}

async function remove(report: GateReport, what: string, f: () => Promise<void>): Promise<void> {
  try {
    await f();
    report.deleted.push(what);
  } catch {
    report.leftovers.push(what);
  }
}

/** Deletes anything of this run still listed (an object whose create response was lost to a timeout or abort). */
async function sweep(opts: GateOptions, deps: GateDeps, report: GateReport): Promise<void> {
  const selector = `${MANAGED_BY_LABEL}=${MANAGED_BY},${RUN_LABEL}=${opts.runId}`;
  const pods = await deps.kube.listPods(opts.namespace, selector).catch(() => []);
  const claims = await deps.kube.listClaims(opts.namespace, selector).catch(() => []);
  for (const p of pods) {
    const what = `pod/${p.metadata?.name}`;
    if (!p.metadata?.deletionTimestamp && !report.deleted.includes(what))
      await remove(report, what, () => deps.kube.deletePod(opts.namespace, p.metadata?.name ?? ''));
  }
  for (const c of claims) {
    const what = `persistentvolumeclaim/${c.metadata?.name}`;
    if (!c.metadata?.deletionTimestamp && !report.deleted.includes(what))
      await remove(report, what, () => deps.kube.deleteClaim(opts.namespace, c.metadata?.name ?? ''));
  }
}

/** "2.1s" under a minute, "5m0s" above: the TIME column. */
export function formatTaken(ms: number): string {
  const tenths = Math.round(ms / 100);
  if (tenths < 600) return `${(tenths / 10).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${s % 60}s`;
}
