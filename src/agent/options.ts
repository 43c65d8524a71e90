// The mount options that decide how a network filesystem behaves when its server pauses, read out of mountinfo.
// Pure. A node mounting soft while the rest mount hard returns I/O errors on that node alone during a brief
// server pause, while every other node waits and recovers: the options are evidence, so they are kept exactly.
import type { KeyOptions } from '../domain/node-report.js';

/** Filesystem types whose client behaviour depends on mount options (network and cluster filesystems). */
const NETWORK_FSTYPES = new Set(['nfs', 'nfs4', 'cifs', 'smb3', 'ceph', 'glusterfs', 'lustre', '9p', 'gpfs']);

/** Whether `fstype` is a network filesystem (FUSE clients of network filesystems included). */
export function isNetworkFs(fstype: string): boolean {
  return NETWORK_FSTYPES.has(fstype) || fstype.startsWith('fuse.');
}

/** The key options of a mount from its per-mount and per-superblock options. */
export function keyOptions(
  fstype: string,
  mountOptions: readonly string[],
  superOptions: readonly string[],
): KeyOptions {
  const kv = new Map<string, string>();
  const flags = new Set<string>();
  for (const o of superOptions) {
    const eq = o.indexOf('=');
    if (eq < 0) flags.add(o);
    else kv.set(o.slice(0, eq), o.slice(eq + 1));
  }
  const out: KeyOptions = { access: mountOptions.includes('ro') || flags.has('ro') ? 'ro' : 'rw' };
  const vers = kv.get('vers') ?? kv.get('nfsvers');
  if (vers !== undefined) out.vers = vers;
  if (flags.has('softerr')) out.recovery = 'softerr';
  else if (flags.has('soft')) out.recovery = 'soft';
  else if (flags.has('hard')) out.recovery = 'hard';
  for (const k of ['timeo', 'retrans', 'proto'] as const) {
    const v = kv.get(k);
    if (v !== undefined) out[k] = v;
  }
  const ac = ['actimeo', 'acregmin', 'acregmax', 'acdirmin', 'acdirmax']
    .filter((k) => kv.has(k))
    .map((k) => `${k}=${kv.get(k)}`);
  if (flags.has('noac')) out.actimeo = 'noac';
  else if (ac.length) out.actimeo = ac.join(',');
  const local = kv.get('local_lock');
  // NFSv3 locks through NLM unless mounted nolock; the kernel shows only "nolock".
  if (flags.has('nolock')) out.lock = 'nolock';
  else if (flags.has('lock') || fstype === 'nfs') out.lock = 'lock';
  if (local !== undefined) out.lock = out.lock ? `${out.lock},local_lock=${local}` : `local_lock=${local}`;
  return out;
}
