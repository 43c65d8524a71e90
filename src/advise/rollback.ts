// The rollback step of a FOLLOWS_ROLLOUT incident: the one rule behind the root message, the next steps, `/rwx
// drain`, `rwx drain-check` and `rwx scan`.
//
// `kubectl rollout undo` without --to-revision goes back to the revision before the newest-numbered one. A DaemonSet
// rollback renumbers the restored ControllerRevision (revision 1 becomes 3), so once a rollback has begun, a second
// plain undo re-applies the broken template. Hence:
// - the bad template is the one of the rollout's new revision (the one the stuck nodes run);
// - while the DaemonSet still targets it (its highest-numbered revision has that template), undo to N, the newest
//   revision with another template, naming what N restores (images, mount propagation);
// - once the highest-numbered revision has another template, a rollback is under way: watch it with
//   `kubectl rollout status`, never undo.
import type { ClusterIndex } from '../domain/cluster-index.js';
import type { Incident, RollbackAdvice, RolloutEvidence, TemplateChange } from '../domain/incident.js';
import type { ControllerRevision } from '../domain/objects.js';
import { nsKey } from '../domain/refs.js';
import { revisionsOf } from '../correlate/plugin-revision.js';
import { diffTemplates } from '../correlate/revision-diff.js';

/** How many restored fields a rollback step names. */
const MAX_RESTORES = 4;

const templateOf = (r: ControllerRevision | undefined) => r?.data?.spec?.template;

/** Whether two revisions carry the same pod template (no difference the revision diff sees). */
function sameTemplate(a: ControllerRevision, b: ControllerRevision): boolean {
  return diffTemplates(templateOf(a), templateOf(b)).length === 0;
}

/** What going from `bad` to `good` puts back: images and mount propagation first, else the storage changes. */
function restores(bad: ControllerRevision, good: ControllerRevision): string[] {
  const changes = diffTemplates(templateOf(bad), templateOf(good));
  const key = (c: TemplateChange): boolean => c.category === 'image' || c.field.endsWith(' mountPropagation');
  const picked = changes.some(key) ? changes.filter(key) : changes.filter((c) => c.category === 'storage');
  return (picked.length > 0 ? picked : changes).slice(0, MAX_RESTORES).map((c) => {
    const where = c.container ? ` in container ${c.container}` : '';
    if (c.category === 'image') return `image ${c.to}${where}`;
    return `${c.field.startsWith(`${c.container} `) ? c.field.slice(c.container!.length + 1) : c.field} ${c.to}${where}`;
  });
}

/** The rollback step for a rollout (see the file comment). */
export function rollbackFor(index: ClusterIndex, ev: RolloutEvidence): RollbackAdvice {
  const { namespace: ns, name } = ev.daemonSet;
  const ds = index.get('daemonSets', nsKey(ns, name));
  const revs = ds ? revisionsOf(index, ds) : []; // highest number first
  const bad = revs.find((r) => r.revision === ev.newRevision);
  const good = bad ? revs.find((r) => r !== bad && !sameTemplate(r, bad)) : undefined;
  if (!bad || !good || good.revision === undefined) {
    return {
      state: 'none',
      restores: [],
      text: `No kept revision of ${ns}/${name} has a pod template other than revision ${ev.newRevision}'s, so there is nothing to undo to: re-apply the manifest of the last release that mounted, and check it before it rolls out (rwx diff daemonset/${name} -n ${ns})`,
    };
  }
  const what = restores(bad, good);
  const named = what.length > 0 ? ` (restores ${what.join('; ')})` : '';
  const target = revs[0];
  if (target && target !== bad && !sameTemplate(target, bad)) {
    return {
      state: 'under-way',
      toRevision: target.revision ?? good.revision,
      restores: what,
      text: `A rollback to revision ${target.revision ?? good.revision}${named} is under way; ${ev.updatedNodes} of ${ev.desiredNodes} nodes still run revision ${ev.newRevision}. Do not undo again: an undo now would restore revision ${ev.newRevision}'s template. Watch it`,
      command: `kubectl rollout status daemonset/${name} -n ${ns}`,
    };
  }
  return {
    state: 'undo',
    toRevision: good.revision,
    restores: what,
    text: `Roll back to revision ${good.revision}, the newest revision whose pod template the stuck nodes did not run${named}`,
    command: `kubectl rollout undo daemonset/${name} -n ${ns} --to-revision=${good.revision}`,
  };
}

/** The incident's rollback step (computed by the evaluation, else here); undefined when it follows no rollout. */
export function rollbackOf(index: ClusterIndex, inc: Incident): RollbackAdvice | undefined {
  if (inc.rollback) return inc.rollback;
  return inc.verdict === 'FOLLOWS_ROLLOUT' && inc.rollout ? rollbackFor(index, inc.rollout) : undefined;
}

/** The step as one line: the words, then the command. */
export function rollbackStep(r: RollbackAdvice): string {
  return r.command ? `${r.text}: ${r.command}` : `${r.text}.`;
}
