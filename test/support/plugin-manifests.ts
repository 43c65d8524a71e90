// A builder of CSI node plugin manifests as text (workloads with hostPath mounts, the registrar and liveness-probe
// sidecars), so a fixture can spell propagation the ways upstream files do. The fixtures: test/support/plugin-fixtures.ts.

/** How a volumeMount spells its propagation: plain, double- or single-quoted Bidirectional, or another mode. */
export type Propagation = 'Bidirectional' | '"Bidirectional"' | "'Bidirectional'" | 'HostToContainer';

/** A hostPath volumeMount: the volume `name` mounted at `path` from `host` (default: the same path). */
export interface MountShape {
  name: string;
  path: string;
  host?: string;
  propagation?: Propagation;
}

/** A container: name, image, args (written as given), literal env and hostPath mounts. */
export interface ContainerShape {
  name: string;
  image: string;
  args?: string[];
  env?: Record<string, string>;
  mounts?: MountShape[];
}

/** A workload: kind, name, namespace (kube-system; false: none, as a kustomize base leaves it), the OS it is pinned to (linux) and its containers. */
export interface WorkloadShape {
  kind?: 'DaemonSet' | 'StatefulSet' | 'Deployment';
  name: string;
  namespace?: string | false;
  os?: 'linux' | 'windows';
  containers: ContainerShape[];
}

/** The node-driver-registrar and livenessprobe images (kubernetes-csi sidecars). */
export const REGISTRAR_IMAGE = 'registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.13.0';
export const PROBE_IMAGE = 'registry.k8s.io/sig-storage/livenessprobe:v2.15.0';

/** A YAML scalar: plain when it reads back as the same string, else double-quoted (JSON is valid YAML). */
const scalar = (s: string): string => (/^[\w./=$()\-:]+$/.test(s) && !/^[\d.]+$/.test(s) ? s : JSON.stringify(s));

function containerYaml(c: ContainerShape): string[] {
  const out = [`        - name: ${c.name}`, `          image: ${scalar(c.image)}`];
  if (c.args?.length) out.push('          args:', ...c.args.map((a) => `            - ${scalar(a)}`));
  const env = Object.entries(c.env ?? {});
  if (env.length)
    out.push(
      '          env:',
      ...env.flatMap(([k, v]) => [`            - name: ${k}`, `              value: ${scalar(v)}`]),
    );
  if (c.mounts?.length) {
    out.push('          volumeMounts:');
    for (const m of c.mounts) {
      out.push(`            - name: ${m.name}`, `              mountPath: ${scalar(m.path)}`);
      if (m.propagation) out.push(`              mountPropagation: ${m.propagation}`);
    }
  }
  return out;
}

/** The manifest text of one workload, its hostPath volumes gathered from its containers' mounts. */
export function workloadYaml(w: WorkloadShape): string {
  const kind = w.kind ?? 'DaemonSet';
  const volumes = new Map<string, string>();
  // a mount that names its host path wins over one that does not (the plugin's /csi is the registrar's socket dir)
  for (const c of w.containers)
    for (const m of c.mounts ?? []) if (m.host || !volumes.has(m.name)) volumes.set(m.name, m.host ?? m.path);
  return [
    `apiVersion: apps/v1`,
    `kind: ${kind}`,
    'metadata:',
    `  name: ${w.name}`,
    ...(w.namespace === false ? [] : [`  namespace: ${w.namespace ?? 'kube-system'}`]),
    'spec:',
    ...(kind === 'StatefulSet' ? [`  serviceName: ${w.name}`, '  replicas: 1'] : []),
    '  selector:',
    '    matchLabels:',
    `      app: ${w.name}`,
    '  template:',
    '    metadata:',
    '      labels:',
    `        app: ${w.name}`,
    '    spec:',
    '      nodeSelector:',
    `        kubernetes.io/os: ${w.os ?? 'linux'}`,
    '      containers:',
    ...w.containers.flatMap(containerYaml),
    '      volumes:',
    ...[...volumes].flatMap(([name, path]) => [
      `        - name: ${name}`,
      '          hostPath:',
      `            path: ${scalar(path)}`,
    ]),
    '',
  ].join('\n');
}

/** How the registrar is told its socket: `--kubelet-registration-path=$(DRIVER_REG_SOCK_PATH)` from env, or literally. */
export function registrar(
  socket: string,
  how: 'env' | 'literal' = 'env',
  root = '/var/lib/kubelet',
  ...extra: MountShape[]
): ContainerShape {
  const mounts = [
    ...extra,
    { name: 'plugin-dir', path: '/csi', host: socket.replace(/[/\\][^/\\]+$/, '') },
    { name: 'registration-dir', path: '/registration', host: `${root}/plugins_registry/` },
  ];
  return how === 'env'
    ? {
        name: 'node-driver-registrar',
        image: REGISTRAR_IMAGE,
        args: ['--csi-address=$(ADDRESS)', '--kubelet-registration-path=$(DRIVER_REG_SOCK_PATH)'],
        env: { ADDRESS: '/csi/csi.sock', DRIVER_REG_SOCK_PATH: socket },
        mounts,
      }
    : {
        name: 'node-driver-registrar',
        image: REGISTRAR_IMAGE,
        args: ['--csi-address=/csi/csi.sock', `--kubelet-registration-path=${socket}`],
        mounts,
      };
}

/** The livenessprobe sidecar; `extra` mounts kubelet directories without propagation, as some drivers do. */
export const livenessProbe = (...extra: MountShape[]): ContainerShape => ({
  name: 'liveness-probe',
  image: PROBE_IMAGE,
  args: ['--csi-address=/csi/csi.sock'],
  mounts: [{ name: 'plugin-dir', path: '/csi' }, ...extra],
});

/** A node plugin container with the given mounts and the plugin socket directory. */
export const plugin = (name: string, image: string, mounts: MountShape[], args?: string[]): ContainerShape => ({
  name,
  image,
  ...(args ? { args } : {}),
  mounts: [...mounts, { name: 'plugin-dir', path: '/csi' }],
});
