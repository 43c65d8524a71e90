// The registry: every detector listed, and the per-pod entry point agrees with the cluster-wide pass.
import { describe, expect, it } from 'vitest';
import { ClusterIndex } from '../../src/domain/cluster-index.js';
import { DEFAULT_DETECT_CONFIG, detectContext } from '../../src/detect/config.js';
import { detectAll, detectCronJob, detectPod, DETECTORS } from '../../src/detect/registry.js';
import { NOW, snapshotOf } from './builders.js';
import { rolloutObjects } from '../correlate/rollout-fixture.js';

describe('registry', () => {
  const index = ClusterIndex.fromSnapshot(snapshotOf(rolloutObjects()));
  const ctx = detectContext(NOW);

  it('lists the three detectors with documented defaults', () => {
    expect(Object.keys(DETECTORS)).toEqual(['stuck-creating', 'stuck-terminating', 'cronjob-missed']);
    expect(DEFAULT_DETECT_CONFIG).toEqual({ stuckAfterMs: 300_000, cronJobGraceMs: 600_000 });
  });

  it('detectPod over every pod plus detectCronJob over every CronJob equals detectAll', () => {
    const perPod = [...index.all('pods')].flatMap((p) => detectPod(index, p, ctx));
    const perCron = [...index.all('cronJobs')].map((c) => detectCronJob(index, c, ctx)).filter((f) => f !== undefined);
    const all = detectAll(index, ctx);
    expect([...perPod, ...perCron].map((f) => f.key).sort()).toEqual(all.map((f) => f.key).sort());
    expect(all.map((f) => f.key).sort()).toEqual([
      'cronjob-missed/data/nightly-backup',
      'stuck-creating/data/nightly-backup-29406600-x7k2p',
      'stuck-creating/platform/postgres-2',
      'stuck-creating/search/search-7d9f8c6b5-d',
      'stuck-creating/search/search-7d9f8c6b5-e',
    ]);
  });
});
