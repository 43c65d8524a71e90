// Which DaemonSet is the node plugin of which CSI driver.
//
// The node-driver-registrar sidecar tells the kubelet where the driver's socket is:
// `--kubelet-registration-path=/var/lib/kubelet/plugins/<driver>/csi.sock`, often written as
// `--kubelet-registration-path=$(DRIVER_REG_SOCK_PATH)` with the path in the container's env. The directory that
// holds the socket names the driver for most drivers (ebs, efs, azure, gcp, ceph, vsphere, linode...). Some use
// another directory name (csi-driver-nfs registers `/var/lib/kubelet/plugins/csi-nfsplugin/csi.sock` for
// nfs.csi.k8s.io, hostpath `csi-hostpath` for hostpath.csi.k8s.io): for those the plugin container's driver-name
// argument also counts (`--drivername=`, `--driver-name=`, `--csi-driver-name=`, one or two dashes as Go's flag
// package accepts, `$(VAR)` expanded), as does an env value named DRIVER_NAME or CSI_DRIVER_NAME (any prefix, e.g.
// X_CSI_DRIVER_NAME). Values that are not a valid driver name (unexpanded Helm templates, `$(VAR)` left over) are
// dropped. An explicit driver -> "namespace/name" override beats everything.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { NsName } from '../domain/findings.js';
import type { Container, DaemonSet, PodTemplate } from '../domain/objects.js';
import { nsKey } from '../domain/refs.js';

const REG_FLAG = /^--kubelet-registration-path[= ](.+)$/;
const DRIVER_FLAG = /^--?(?:csi-)?driver-?name[= ](.+)$/i;
const DRIVER_ENV = /(?:^|_)(?:CSI_)?DRIVER_NAME$/;
/** A CSI driver name: at most 63 characters, DNS-subdomain-like (CSIDriver naming rules). */
const DRIVER_NAME = /^[A-Za-z0-9](?:[-A-Za-z0-9.]{0,61}[A-Za-z0-9])?$/;

/** A container's env as name -> literal value (valueFrom entries are skipped). */
function envOf(c: Container): Map<string, string> {
  const env = new Map<string, string>();
  for (const e of (c.env as { name?: string; value?: string }[] | undefined) ?? []) {
    if (e?.name && typeof e.value === 'string') env.set(e.name, e.value);
  }
  return env;
}

/** Expands `$(VAR)` references the way the kubelet does, from the container's literal env values. */
export function expandEnv(text: string, env: ReadonlyMap<string, string>): string {
  return text.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env.get(name) ?? whole);
}

/** Flag values of a container's command + args, with "--flag value" pairs joined as "--flag=value". */
function flags(c: Container): string[] {
  const words = [...(c.command ?? []), ...(c.args ?? [])].map((w) => String(w).trim());
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] ?? '';
    const next = words[i + 1];
    if (/^--?[A-Za-z][\w-]*$/.test(w) && next !== undefined && !next.startsWith('-')) {
      out.push(`${w}=${next}`);
      i++;
    } else out.push(w);
  }
  return out;
}

/** The kubelet registration path of a pod template's registrar container, env references expanded. */
export function registrationPath(template: PodTemplate | undefined): string | undefined {
  for (const c of template?.spec?.containers ?? []) {
    const env = envOf(c);
    for (const f of flags(c)) {
      const m = REG_FLAG.exec(f);
      if (m?.[1]) return expandEnv(m[1].replace(/^["']|["']$/g, ''), env);
    }
  }
  return undefined;
}

/** The driver a registration path names: the directory holding the socket (Windows paths too). */
export function driverFromRegistrationPath(path: string): string | undefined {
  const parts = path.split(/[\\/]+/).filter(Boolean);
  return parts.length >= 2 ? parts[parts.length - 2] : undefined;
}

/** Every driver name a node plugin pod template declares: registration directory, --drivername flags, env. */
export function driversOfTemplate(template: PodTemplate | undefined): string[] {
  const reg = registrationPath(template);
  if (!reg) return []; // no registrar: not a node plugin
  const names = new Set<string>();
  const fromPath = driverFromRegistrationPath(reg);
  if (fromPath) names.add(fromPath);
  for (const c of template?.spec?.containers ?? []) {
    const env = envOf(c);
    for (const f of flags(c)) {
      const m = DRIVER_FLAG.exec(f);
      if (m?.[1]) names.add(expandEnv(m[1].replace(/^["']|["']$/g, ''), env));
    }
    for (const [k, v] of env) if (DRIVER_ENV.test(k) && v) names.add(v.trim());
  }
  return [...names].filter((n) => DRIVER_NAME.test(n));
}

/** Driver -> "namespace/name" of its node plugin DaemonSet, as configured by an operator. */
export type DriverDaemonSets = Record<string, string>;

/**
 * Finds the node plugin DaemonSet of every driver in the cluster cache. Overrides win; otherwise the first
 * DaemonSet (by namespace/name) whose template declares the driver. Linear in DaemonSets.
 */
export function findPluginDaemonSets(index: ClusterIndex, overrides: DriverDaemonSets = {}): Map<string, DaemonSet> {
  const out = new Map<string, DaemonSet>();
  const all = [...index.all('daemonSets')].sort((a, b) =>
    nsKey(a.metadata?.namespace, a.metadata?.name).localeCompare(nsKey(b.metadata?.namespace, b.metadata?.name)));
  for (const ds of all) {
    for (const d of driversOfTemplate(ds.spec?.template)) if (!out.has(d)) out.set(d, ds);
  }
  for (const [driver, key] of Object.entries(overrides)) {
    const ds = index.get('daemonSets', key);
    if (ds) out.set(driver, ds);
  }
  return out;
}

/** namespace/name of a DaemonSet as an NsName. */
export function dsRef(ds: DaemonSet): NsName {
  return { namespace: ds.metadata?.namespace ?? '', name: ds.metadata?.name ?? '' };
}
