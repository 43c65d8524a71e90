// Which DaemonSet is the node plugin of which CSI driver, and how that was found (PluginMatch.method).
//
// The node-driver-registrar sidecar tells the kubelet where the driver's socket is:
// `--kubelet-registration-path=/var/lib/kubelet/plugins/<driver>/csi.sock`, often written as
// `--kubelet-registration-path=$(DRIVER_REG_SOCK_PATH)` with the path in the container's env. The directory that
// holds the socket names the driver for most drivers (ebs, efs, azure, gcp, ceph, vsphere, linode...):
// 'registration-path'. Some use another directory name (csi-driver-nfs registers
// `/var/lib/kubelet/plugins/csi-nfsplugin/csi.sock` for nfs.csi.k8s.io, hostpath `csi-hostpath` for
// hostpath.csi.k8s.io): for those the plugin container's driver-name argument also counts (`--drivername=`,
// `--driver-name=`, `--csi-driver-name=`, one or two dashes as Go's flag package accepts, `$(VAR)` expanded), as
// does an env value named DRIVER_NAME or CSI_DRIVER_NAME (any prefix, e.g. X_CSI_DRIVER_NAME): 'driver-flag'.
// Values that are not a valid driver name (unexpanded Helm templates, `$(VAR)` left over) are dropped.
// A driver still without a DaemonSet (csi-driver-nfs's deploy/csi-nfs-node.yaml names none) may then be paired by
// elimination or by a name token (plugin-match.ts: 'elimination', 'name-token'; skipped when a kind they read is
// unreadable). An explicit driver -> "namespace/name" override beats everything: 'override'.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { NsName } from '../domain/findings.js';
import type { Container, DaemonSet, PodTemplate } from '../domain/objects.js';
import { nsKey } from '../domain/refs.js';
import {
  FALLBACK_KINDS,
  fallbackMatches,
  isDriverName,
  knownDrivers,
  type PluginMatch,
  type Unclaimed,
} from './plugin-match.js';

export { describePluginMatch, type MatchMethod, type PluginMatch } from './plugin-match.js';

const REG_FLAG = /^--kubelet-registration-path[= ](.+)$/;
const DRIVER_FLAG = /^--?(?:csi-)?driver-?name[= ](.+)$/i;
const DRIVER_ENV = /(?:^|_)(?:CSI_)?DRIVER_NAME$/;

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

/** A driver name a template declares, and whether its registration directory or a driver-name flag/env says so. */
export interface DeclaredDriver {
  name: string;
  method: 'registration-path' | 'driver-flag';
}

/** The driver names a node plugin pod template declares, registration directory first; [] without a registrar. */
export function declaredDrivers(template: PodTemplate | undefined): DeclaredDriver[] {
  return declaredAt(template, registrationPath(template));
}

/** declaredDrivers for a template whose registration path `reg` the caller already read. */
function declaredAt(template: PodTemplate | undefined, reg: string | undefined): DeclaredDriver[] {
  if (!reg) return []; // no registrar: not a node plugin
  const names = new Map<string, DeclaredDriver['method']>();
  const fromPath = driverFromRegistrationPath(reg);
  if (fromPath) names.set(fromPath, 'registration-path');
  const add = (n: string) => {
    if (!names.has(n)) names.set(n, 'driver-flag');
  };
  for (const c of template?.spec?.containers ?? []) {
    const env = envOf(c);
    for (const f of flags(c)) {
      const m = DRIVER_FLAG.exec(f);
      if (m?.[1]) add(expandEnv(m[1].replace(/^["']|["']$/g, ''), env));
    }
    for (const [k, v] of env) if (DRIVER_ENV.test(k) && v) add(v.trim());
  }
  return [...names].filter(([n]) => isDriverName(n)).map(([name, method]) => ({ name, method }));
}

/** Every driver name a node plugin pod template declares: registration directory, --drivername flags, env. */
export function driversOfTemplate(template: PodTemplate | undefined): string[] {
  return declaredDrivers(template).map((d) => d.name);
}

/** Driver -> its node plugin DaemonSet, as configured by an operator (RWX_DRIVER_DAEMONSETS, --plugin). */
export type DriverDaemonSets = Readonly<Record<string, NsName>>;

/**
 * The node plugin DaemonSet of every driver in the cluster cache, with how it was found (file comment): the first
 * DaemonSet (by namespace/name) whose template declares the driver, else the fallback rules of plugin-match.ts,
 * and overrides naming an existing DaemonSet beat both. Linear in DaemonSets, plus the objects naming drivers
 * (CSIDrivers, CSINodes, PVs, StorageClasses) only when some node plugin DaemonSet names no dotted driver.
 */
export function matchPluginDaemonSets(index: ClusterIndex, overrides: DriverDaemonSets = {}): Map<string, PluginMatch> {
  const out = new Map<string, PluginMatch>();
  const all = [...index.all('daemonSets')].sort((a, b) =>
    nsKey(a.metadata?.namespace, a.metadata?.name).localeCompare(nsKey(b.metadata?.namespace, b.metadata?.name)),
  );
  const overridden = new Map<string, DaemonSet>();
  for (const [driver, ref] of Object.entries(overrides)) {
    const ds = index.get('daemonSets', nsKey(ref.namespace, ref.name));
    if (ds) overridden.set(driver, ds);
  }
  const overriddenSets = new Set(overridden.values());
  // Node plugins that may serve a driver they do not name: no dotted name declared, no override pointing at them.
  const open: { ds: DaemonSet; names: string[]; registrationDir?: string }[] = [];
  for (const ds of all) {
    const t = ds.spec?.template;
    const reg = registrationPath(t);
    const declared = declaredAt(t, reg);
    for (const d of declared) if (!out.has(d.name)) out.set(d.name, { daemonSet: ds, method: d.method });
    if (!reg || overriddenSets.has(ds) || declared.some((d) => d.name.includes('.'))) continue;
    const dir = driverFromRegistrationPath(reg);
    open.push({ ds, names: declared.map((d) => d.name), ...(dir ? { registrationDir: dir } : {}) });
  }
  if (open.length > 0 && FALLBACK_KINDS.every((k) => index.readable(k))) {
    const known = knownDrivers(index);
    const unmatched = new Map([...known].filter(([d]) => !out.has(d) && !overridden.has(d)));
    const unclaimed: Unclaimed[] = open
      .filter((o) => !o.names.some((n) => known.has(n)))
      .map((o) => ({ daemonSet: o.ds, ...(o.registrationDir ? { registrationDir: o.registrationDir } : {}) }));
    for (const [driver, m] of fallbackMatches(unmatched, unclaimed)) out.set(driver, m);
  }
  for (const [driver, ds] of overridden) out.set(driver, { daemonSet: ds, method: 'override' });
  return out;
}

/**
 * Finds the node plugin DaemonSet of every driver in the cluster cache: matchPluginDaemonSets without the method.
 * Overrides win.
 */
export function findPluginDaemonSets(index: ClusterIndex, overrides: DriverDaemonSets = {}): Map<string, DaemonSet> {
  const out = new Map<string, DaemonSet>();
  for (const [driver, m] of matchPluginDaemonSets(index, overrides)) out.set(driver, m.daemonSet);
  return out;
}

/** namespace/name of a DaemonSet as an NsName. */
export function dsRef(ds: DaemonSet): NsName {
  return { namespace: ds.metadata?.namespace ?? '', name: ds.metadata?.name ?? '' };
}
