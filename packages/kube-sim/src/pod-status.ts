// Pod status as the kubelet writes it, derived from a phase: the conditions and containerStatuses a real
// `kubectl get pod -o json` shows, so scenarios can say `phase: Running` and the tiny kubelet can move pods along.
import type { Container, Pod } from './objects.js';
import { formatTime } from './times.js';

/** The pod states the simulator models; "ContainerCreating" is Pending on a node with mounts not done. */
export type PodState = 'Unschedulable' | 'ContainerCreating' | 'Running' | 'Succeeded' | 'Failed';

function cond(type: string, status: boolean, at: string, reason?: string): Record<string, unknown> {
  const c: Record<string, unknown> = {
    lastProbeTime: null,
    lastTransitionTime: at,
    status: status ? 'True' : 'False',
    type,
  };
  if (reason) c.reason = reason;
  return c;
}

function podIp(pod: Pod): string {
  const name = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return `10.244.${(h >>> 8) % 250}.${(h % 250) + 2}`;
}

function hostIp(node: string): string {
  const n = Number(/(\d+)$/.exec(node)?.[1] ?? '1');
  return `10.0.${Math.floor(n / 250)}.${(n % 250) + 10}`;
}

function containerStatus(c: Container, state: PodState, at: string): Record<string, unknown> {
  const base = { image: c.image ?? '', imageID: '', lastState: {}, name: c.name ?? '', restartCount: 0 };
  const id = {
    containerID: `containerd://${Buffer.from(`${c.name}${at}`).toString('hex').padEnd(64, '0').slice(0, 64)}`,
  };
  const imageID = c.image
    ? `${c.image.split(':')[0]}@sha256:${Buffer.from(c.image).toString('hex').padEnd(64, '0').slice(0, 64)}`
    : '';
  switch (state) {
    case 'Running':
      return { ...id, ...base, imageID, ready: true, started: true, state: { running: { startedAt: at } } };
    case 'Succeeded':
    case 'Failed': {
      const ok = state === 'Succeeded';
      const terminated = {
        ...id,
        exitCode: ok ? 0 : 1,
        finishedAt: at,
        reason: ok ? 'Completed' : 'Error',
        startedAt: at,
      };
      return { ...id, ...base, imageID, ready: false, started: false, state: { terminated } };
    }
    default:
      return { ...base, ready: false, started: false, state: { waiting: { reason: 'ContainerCreating' } } };
  }
}

/** The status a kubelet reports for `pod` in `state`; `sinceMs` dates the transitions, `startMs` the start time. */
export function podStatus(
  pod: Pod,
  state: PodState,
  sinceMs: number,
  startMs = sinceMs,
): Pod['status'] & Record<string, unknown> {
  const at = formatTime(sinceMs);
  const start = formatTime(startMs);
  if (state === 'Unschedulable') {
    return {
      conditions: [{ ...cond('PodScheduled', false, at, 'Unschedulable'), message: '0/1 nodes are available.' }],
      phase: 'Pending',
      qosClass: 'BestEffort',
    } as Pod['status'] & Record<string, unknown>;
  }
  const node = pod.spec?.nodeName ?? '';
  const running = state === 'Running';
  const done = state === 'Succeeded' || state === 'Failed';
  const notReady = done ? 'PodCompleted' : 'ContainersNotReady';
  const containers = pod.spec?.containers ?? [];
  const status: Record<string, unknown> = {
    conditions: [
      cond('PodReadyToStartContainers', running || done, running || done ? at : start),
      cond('Initialized', true, start, done ? 'PodCompleted' : undefined),
      cond('Ready', running, running ? at : start, running ? undefined : notReady),
      cond('ContainersReady', running, running ? at : start, running ? undefined : notReady),
      cond('PodScheduled', true, start),
    ],
    containerStatuses: containers.map((c) => containerStatus(c, state, at)),
    hostIP: hostIp(node),
    hostIPs: [{ ip: hostIp(node) }],
    phase: state === 'ContainerCreating' ? 'Pending' : state,
    qosClass: 'BestEffort',
    startTime: start,
  };
  if (state !== 'ContainerCreating') {
    status.podIP = podIp(pod);
    status.podIPs = [{ ip: podIp(pod) }];
  }
  for (const c of status.conditions as Record<string, unknown>[]) if (!c.reason) delete c.reason;
  return status as Pod['status'] & Record<string, unknown>;
}

/** The state a scenario's `status.phase` stands for (Pending means ContainerCreating when the pod has a node). */
export function stateOfPhase(pod: Pod, phase: string | undefined): PodState {
  if (phase === 'Running' || phase === 'Succeeded' || phase === 'Failed') return phase;
  return pod.spec?.nodeName ? 'ContainerCreating' : 'Unschedulable';
}
