// Parsing /proc/PID/mountinfo (proc(5)). Pure: text in, entries out, so recorded files test every edge case.
//
//   36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
//   (1)(2) (3)   (4)   (5)      (6)      (7)   (8) (9)     (10)         (11)
//
// mount ID, parent ID, major:minor, root (path inside the filesystem), mount point (relative to the reading
// process's root), per-mount options, zero or more optional fields (shared:N, master:N, propagate_from:N,
// unbindable), the "-" separator, filesystem type, source, per-superblock options. The kernel writes space, tab,
// newline and backslash in paths as octal escapes (\040, \011, \012, \134).

/** Propagation tags from the optional fields. */
export interface Propagation {
  /** Peer group of a shared mount. */
  shared?: number;
  /** Peer group this mount receives propagation from (a slave). */
  master?: number;
  /** Nearest dominant peer group under the process's root (only with master). */
  propagateFrom?: number;
  unbindable: boolean;
  /** Optional fields this parser does not know, kept as written. */
  other: string[];
}

/** One line of mountinfo, unescaped. */
export interface MountEntry {
  id: number;
  parentId: number;
  /** "major:minor" of the filesystem: the same number in every mount namespace for the same superblock. */
  dev: string;
  /** The directory of the filesystem mounted here ("/" unless a bind mount of a subdirectory). */
  root: string;
  mountPoint: string;
  /** Per-mount options (rw, ro, nosuid, relatime...). */
  mountOptions: string[];
  propagation: Propagation;
  fstype: string;
  source: string;
  /** Per-superblock options (for NFS: vers=, hard/soft, timeo=...). */
  superOptions: string[];
}

/** A line that did not parse, with its 1-based number. */
export interface MountinfoProblem {
  line: number;
  text: string;
  reason: string;
}

/** Replaces the kernel's octal escapes (\NNN) with the byte they stand for. */
export function unescapeOctal(s: string): string {
  if (!s.includes('\\')) return s;
  const bytes: number[] = [];
  const raw = Buffer.from(s, 'utf8');
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i] as number;
    if (b === 0x5c && isOctal(raw[i + 1]) && isOctal(raw[i + 2]) && isOctal(raw[i + 3])) {
      bytes.push(parseInt(String.fromCharCode(raw[i + 1] as number, raw[i + 2] as number, raw[i + 3] as number), 8));
      i += 3;
    } else bytes.push(b);
  }
  return Buffer.from(bytes).toString('utf8');
}

function isOctal(b: number | undefined): boolean {
  return b !== undefined && b >= 0x30 && b <= 0x37;
}

function parsePropagation(fields: string[]): Propagation {
  const p: Propagation = { unbindable: false, other: [] };
  for (const f of fields) {
    const [tag, value] = f.split(':', 2);
    const n = value === undefined ? NaN : Number(value);
    if (tag === 'shared' && Number.isInteger(n)) p.shared = n;
    else if (tag === 'master' && Number.isInteger(n)) p.master = n;
    else if (tag === 'propagate_from' && Number.isInteger(n)) p.propagateFrom = n;
    else if (f === 'unbindable') p.unbindable = true;
    else p.other.push(f);
  }
  return p;
}

/** Splits an option list on commas and unescapes each option. */
export function splitOptions(s: string): string[] {
  return s === '' ? [] : s.split(',').map(unescapeOctal);
}

/** Parses one mountinfo line; returns a reason string when it is malformed. */
export function parseMountinfoLine(line: string): MountEntry | string {
  const t = line.split(' ');
  const sep = t.indexOf('-', 6);
  if (t.length < 10 || sep < 6 || t.length < sep + 3) return 'fewer fields than mountinfo has';
  const id = Number(t[0]);
  const parentId = Number(t[1]);
  if (!Number.isInteger(id) || !Number.isInteger(parentId)) return 'mount ID or parent ID is not a number';
  const dev = t[2] ?? '';
  if (!/^\d+:\d+$/.test(dev)) return `"${dev}" is not major:minor`;
  return {
    id,
    parentId,
    dev,
    root: unescapeOctal(t[3] ?? ''),
    mountPoint: unescapeOctal(t[4] ?? ''),
    mountOptions: splitOptions(t[5] ?? ''),
    propagation: parsePropagation(t.slice(6, sep)),
    fstype: unescapeOctal(t[sep + 1] ?? ''),
    source: unescapeOctal(t[sep + 2] ?? ''),
    // Super options never contain a raw space; anything after them is a newer kernel's addition, ignored.
    superOptions: splitOptions(t[sep + 3] ?? ''),
  };
}

/** Parses a whole mountinfo file. Malformed lines are skipped and returned as problems, never guessed at. */
export function parseMountinfo(text: string): { mounts: MountEntry[]; problems: MountinfoProblem[] } {
  const mounts: MountEntry[] = [];
  const problems: MountinfoProblem[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line === '') continue;
    const r = parseMountinfoLine(line);
    if (typeof r === 'string') problems.push({ line: i + 1, text: line.slice(0, 200), reason: r });
    else mounts.push(r);
  }
  return { mounts, problems };
}
