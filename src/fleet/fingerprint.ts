// The fingerprint of a rollout that broke mounts (pure): which DaemonSet, which driver, and what its revision
// changed, normalised so the same change made in two clusters has the same fingerprint: each changed field as
// category, container, field, from -> to, with images reduced to their repository name and tag or digest (a
// registry mirror, e.g. registry.example.com/mirror/ebs-csi-driver/aws-ebs-csi-driver:v1.31.0, names the same image
// as public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.31.0). The verdict goes with it (FOLLOWS_ROLLOUT only).
import { createHash } from 'node:crypto';
import type { NsName } from '../domain/findings.js';
import type { TemplateChange } from '../domain/incident.js';

/** A normalised rollout change and its id. */
export interface Fingerprint {
  /** sha256 prefix of the rest: the Redis key part. */
  id: string;
  daemonSet: string;
  driver: string;
  /** The normalised changes, sorted. */
  changes: string[];
  verdict: 'FOLLOWS_ROLLOUT';
}

/** An image without its registry and path: `aws-ebs-csi-driver:v1.31.0` (digest kept when present). */
export function imageName(image: string): string {
  const at = image.indexOf('@');
  const ref = at >= 0 ? image.slice(0, at) : image;
  const digest = at >= 0 ? image.slice(at) : '';
  const last = ref.slice(ref.lastIndexOf('/') + 1);
  return `${last}${digest}`;
}

/** One change as the fingerprint states it. */
export function normaliseChange(c: TemplateChange): string {
  const v = (s: string) => (c.category === 'image' ? imageName(s) : s);
  return `${c.category}|${c.container ?? ''}|${c.field}|${v(c.from)} -> ${v(c.to)}`;
}

/** The fingerprint of `changes` to DaemonSet `ds` of `driver`; undefined when nothing changed (nothing to match). */
export function fingerprintOf(
  ds: NsName,
  driver: string | undefined,
  changes: readonly TemplateChange[],
): Fingerprint | undefined {
  if (changes.length === 0) return undefined;
  const daemonSet = `${ds.namespace}/${ds.name}`;
  const normalised = [...new Set(changes.map(normaliseChange))].sort();
  const id = createHash('sha256')
    .update(JSON.stringify([daemonSet, driver ?? '', normalised]))
    .digest('hex')
    .slice(0, 24);
  return { id, daemonSet, driver: driver ?? '', changes: normalised, verdict: 'FOLLOWS_ROLLOUT' };
}

/** The changes as a person reads them (the revision diff's own lines), at most `max`, images without registry. */
export function describeChanges(changes: readonly TemplateChange[], max = 3): string {
  const lines = changes
    .slice()
    .sort((a, b) => rank(a) - rank(b))
    .map((c) =>
      c.category === 'image' ? `${c.container ?? ''} image ${imageName(c.from)} -> ${imageName(c.to)}` : c.text,
    );
  const more = lines.length > max ? ` and ${lines.length - max} more` : '';
  return lines.slice(0, max).join('; ') + more;
}

// Storage first (the change that breaks mounts), then security, image, the rest.
function rank(c: TemplateChange): number {
  return ['storage', 'security', 'image', 'other'].indexOf(c.category);
}
