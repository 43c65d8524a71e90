// How a workload's readiness reads (src/render/readiness.ts), and that every renderer listing workloads says it the
// same way: the Slack thread (slack-members.ts workloadLines) and the terminal (terminal-incidents.ts).
import { describe, expect, it } from 'vitest';
import type { Incident, WorkloadReadiness } from '../../src/domain/incident.js';
import { readinessSuffix } from '../../src/render/readiness.js';
import { workloadLines } from '../../src/render/slack-members.js';
import { renderIncident } from '../../src/render/terminal-incidents.js';
import { rolloutIncident } from './incident-fixtures.js';

describe('readinessSuffix', () => {
  it.each([
    // A DaemonSet's own status: ready of the nodes it should run on, as kubectl's READY column.
    ['of a desired count', { ready: 3, of: 5, counted: 'desired' }, ' (3 of 5 ready)'],
    // Only the pods that exist were counted: it says pods, never a replica count it did not read.
    ['of the pods that exist', { ready: 3, of: 5, counted: 'existing' }, ' (3 of 5 pods ready)'],
    ['of one pod', { ready: 0, of: 1, counted: 'existing' }, ' (0 of 1 pod ready)'],
    ['not counted', undefined, ''],
  ] satisfies [string, WorkloadReadiness | undefined, string][])('%s', (_name, r, want) => {
    expect(readinessSuffix(r)).toBe(want);
  });
});

describe('workloads with their readiness, in every renderer', () => {
  const base = rolloutIncident();
  const incident: Incident = {
    ...base,
    workloads: base.workloads.map((w) =>
      w.kind === 'Deployment' ? { ...w, readiness: { ready: 3, of: 5, counted: 'existing' } } : w,
    ),
  };

  it('the Slack thread names the Deployment with its ready pods, and the StatefulSet without a count as before', () => {
    const lines = workloadLines(incident);
    expect(lines).toContainEqual(expect.stringMatching(/^• `search` Deployment \*search\* \(3 of 5 pods ready\): /));
    expect(lines).toContainEqual(expect.stringMatching(/^• `platform` StatefulSet \*postgres\*: postgres-2/));
  });

  it('the terminal says the same', () => {
    const text = renderIncident(incident).join('\n');
    expect(text).toContain('    Deployment search/search (3 of 5 pods ready): search/search-7d9f-abcde');
    expect(text).toContain('    StatefulSet platform/postgres: platform/postgres-2');
  });
});
