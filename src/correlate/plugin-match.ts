// The fallback pairing of CSI drivers with node plugin DaemonSets that do not name their driver, and the words
// that say how a pairing was made. Pure; plugin-finder.ts runs these rules after its own (registration path,
// driver-name flag or env) and before the operator's overrides, which still win.
//
// Known drivers: names of CSIDriver objects, drivers registered in CSINodes, `spec.csi.driver` of PVs, and
// StorageClass provisioners that are valid CSI driver names (`kubernetes.io/no-provisioner`, `rancher.io/local-path`
// and other `domain/name` provisioners cannot be CSI drivers and are ignored). A driver known only from a
// StorageClass may be no CSI driver at all, so it counts as unmatched (it can block a pairing) but is never paired.
// A node plugin DaemonSet (it has a node-driver-registrar) is claimed when it declares a known driver, declares a
// dotted name (the reverse-domain form driver names take: it serves that driver even if nothing else mentions it),
// or an override names it; otherwise it is unclaimed.
//
// 1. Elimination: exactly one known driver without a DaemonSet and exactly one unclaimed node plugin DaemonSet are
//    paired. Two or more on either side pair nothing.
// 2. Name token, only when elimination paired nothing: the driver's first DNS label ("nfs" of nfs.csi.k8s.io) is a
//    token of the DaemonSet's name or registration directory, tokens split on non-alphanumerics with a trailing
//    "plugin" dropped ("csi-nfsplugin" -> csi, nfs). Labels shorter than 3 characters or generic ("csi", "disk",
//    "local"...) never match. Paired when exactly one unclaimed DaemonSet matches the driver and it matches no
//    other unmatched driver.
// Both rules reason from what is absent, so the caller skips them when any of the kinds they read is unreadable.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { KindKey } from '../domain/kinds.js';
import type { DaemonSet } from '../domain/objects.js';

/** How a driver was paired with its node plugin DaemonSet. */
export type MatchMethod = 'registration-path' | 'driver-flag' | 'override' | 'elimination' | 'name-token';

/** A driver's node plugin DaemonSet and how it was found. */
export interface PluginMatch {
  daemonSet: DaemonSet;
  method: MatchMethod;
  /** For 'name-token': the label that matched. */
  token?: string;
}

/** A CSI driver name: at most 63 characters, DNS-subdomain-like (CSIDriver naming rules). */
const DRIVER_NAME = /^[A-Za-z0-9](?:[-A-Za-z0-9.]{0,61}[A-Za-z0-9])?$/;

/** Whether a string can be a CSI driver name. */
export function isDriverName(s: string): boolean {
  return DRIVER_NAME.test(s);
}

/** The kinds the fallback rules read: if one is unreadable, absence proves nothing and they are skipped. */
export const FALLBACK_KINDS: readonly KindKey[] = ['daemonSets', 'csiDrivers', 'csiNodes', 'pvs', 'storageClasses'];

/**
 * Known drivers -> whether something besides a StorageClass shows it is a CSI driver (see the file comment).
 * Linear in CSIDrivers, CSINodes' drivers, PVs and StorageClasses.
 */
export function knownDrivers(index: ClusterIndex): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const csi = (name: string | undefined | null) => {
    if (name && isDriverName(name)) out.set(name, true);
  };
  for (const d of index.all('csiDrivers')) csi(d.metadata?.name);
  for (const n of index.all('csiNodes')) for (const d of n.spec?.drivers ?? []) csi(d?.name);
  for (const pv of index.all('pvs')) csi(pv.spec?.csi?.driver);
  for (const sc of index.all('storageClasses')) {
    const p = sc.provisioner;
    if (p && isDriverName(p) && !out.has(p)) out.set(p, false);
  }
  return out;
}

/** A node plugin DaemonSet no known driver claims, with the words its name-token match reads. */
export interface Unclaimed {
  daemonSet: DaemonSet;
  /** The directory of its registration socket ("csi-nfsplugin"), if any. */
  registrationDir?: string;
}

const GENERIC = new Set([
  'csi',
  'driver',
  'drivers',
  'plugin',
  'node',
  'nodes',
  'k8s',
  'kube',
  'kubernetes',
  'com',
  'org',
  'net',
  'cloud',
  'storage',
  'volume',
  'volumes',
  'disk',
  'file',
  'files',
  'block',
  'local',
  'host',
  'default',
  'system',
  'provisioner',
  'controller',
  'daemon',
]);

/** The token a driver is recognised by: its first DNS label, unless shorter than 3 characters or generic. */
export function driverToken(driver: string): string | undefined {
  const label = driver.split('.')[0]?.toLowerCase() ?? '';
  return label.length >= 3 && !GENERIC.has(label) ? label : undefined;
}

/** The tokens of a name: split on non-alphanumerics, lower-cased, a trailing "plugin" dropped ("nfsplugin" -> "nfs"). */
export function nameTokens(name: string): Set<string> {
  const out = new Set<string>();
  for (const w of name.toLowerCase().split(/[^a-z0-9]+/)) {
    const t = w.length > 'plugin'.length && w.endsWith('plugin') ? w.slice(0, -'plugin'.length) : w;
    if (t) out.add(t);
  }
  return out;
}

/**
 * Pairs unmatched drivers with unclaimed DaemonSets by elimination, else by name token (file comment). `drivers`
 * are the unmatched known drivers with their CSI evidence flag. Linear in drivers + DaemonSets.
 */
export function fallbackMatches(
  drivers: ReadonlyMap<string, boolean>,
  unclaimed: readonly Unclaimed[],
): Map<string, PluginMatch> {
  const out = new Map<string, PluginMatch>();
  if (drivers.size === 0 || unclaimed.length === 0) return out;
  if (drivers.size === 1 && unclaimed.length === 1) {
    const [driver, isCsi] = [...drivers][0]!;
    if (isCsi) out.set(driver, { daemonSet: unclaimed[0]!.daemonSet, method: 'elimination' });
    return out;
  }
  // Name tokens: index DaemonSets by token, then keep pairs that are unique both ways.
  const byToken = new Map<string, Unclaimed[]>();
  for (const u of unclaimed) {
    const tokens = nameTokens(u.daemonSet.metadata?.name ?? '');
    for (const t of nameTokens(u.registrationDir ?? '')) tokens.add(t);
    for (const t of tokens) {
      const l = byToken.get(t);
      if (l) l.push(u);
      else byToken.set(t, [u]);
    }
  }
  const driversOf = new Map<Unclaimed, number>();
  const candidate = new Map<string, { u: Unclaimed; token: string }>();
  for (const [driver, isCsi] of drivers) {
    const token = driverToken(driver);
    const hits = token ? (byToken.get(token) ?? []) : [];
    for (const u of hits) driversOf.set(u, (driversOf.get(u) ?? 0) + 1);
    if (isCsi && token && hits.length === 1 && hits[0]) candidate.set(driver, { u: hits[0], token });
  }
  for (const [driver, { u, token }] of candidate) {
    if (driversOf.get(u) === 1) out.set(driver, { daemonSet: u.daemonSet, method: 'name-token', token });
  }
  return out;
}

/**
 * One line saying how a driver's node plugin was found, for an incident's explanations or revision text, e.g.
 * "node plugin kube-system/csi-nfs-node of nfs.csi.k8s.io found by elimination: ...".
 */
export function describePluginMatch(driver: string, m: PluginMatch): string {
  const ds = `${m.daemonSet.metadata?.namespace ?? ''}/${m.daemonSet.metadata?.name ?? ''}`;
  const head = `node plugin ${ds} of ${driver} found`;
  const confirm = `; if that is wrong, set RWX_DRIVER_DAEMONSETS=${driver}=namespace/name`;
  switch (m.method) {
    case 'registration-path':
      return `${head} by the registration path of its node-driver-registrar`;
    case 'driver-flag':
      return `${head} by the driver name its plugin container is given (flag or env)`;
    case 'override':
      return `${head} by the RWX_DRIVER_DAEMONSETS override`;
    case 'elimination':
      return `${head} by elimination: it is the only node plugin DaemonSet that names no known driver, and ${driver} the only known driver without one${confirm}`;
    case 'name-token':
      return `${head} by name: "${m.token ?? ''}" of ${driver} names ${ds} and no other unclaimed node plugin${confirm}`;
  }
}
