// With the default settings, a watch that goes silent (the connection open, no byte: a half-open connection behind a
// load balancer) is caught within 90 s, and what /readyz reads (ClusterWatcher.stalled) names it. The API server
// sends a bookmark to every watch that asked for them once a minute (defaultBookmarkFrequency in
// k8s.io/apiserver/pkg/storage/cacher/cacher.go), so a quiet watch that is healthy is heard from at least that often;
// the default idle limit is that minute plus the 15 s margin the API server's watch cache keeps events for.
import { describe, expect, it } from 'vitest';
import { defaultMs } from '../../src/config/defaults.js';
import { ManualClock } from '../../src/domain/clock.js';
import { ManualTimers } from '../../src/watch/timers.js';
import { REFLECTOR_DEFAULTS } from '../../src/watch/reflector.js';
import { ClusterWatcher } from '../../src/watch/watcher.js';
import { FakeClusterSource } from '../support/fake-source.js';

const BOOKMARK_EVERY_MS = 60_000;
const flush = () => new Promise<void>((r) => setImmediate(r));

async function watching() {
  const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
  const timers = new ManualTimers(clock);
  const source = new FakeClusterSource();
  // No reflector options: the defaults, as `rwx serve` runs with RWX_WATCH_IDLE_TIMEOUT unset.
  const w = new ClusterWatcher({ source, kinds: ['pods'], clock, timers });
  w.start();
  await flush();
  expect(w.synced()).toBe(true);
  return { clock, timers, source, w };
}

describe('a stalled watch with the default settings', () => {
  it('the idle limit is the configuration default: above the bookmark minute, with the tick under 90 s', () => {
    expect(REFLECTOR_DEFAULTS.stallMs).toBe(defaultMs('watchIdleTimeout'));
    expect(REFLECTOR_DEFAULTS.stallMs).toBeGreaterThan(BOOKMARK_EVERY_MS); // a late bookmark is not a stall
    expect(REFLECTOR_DEFAULTS.stallMs + 1_000).toBeLessThan(90_000); // the watchdog ticks every second
  });

  it('a quiet watch that gets its bookmark every minute is never called stalled', async () => {
    const { timers, source, w } = await watching();
    for (let s = 1; s <= 600; s++) {
      timers.advance(1_000);
      if (s % 60 === 0) source.bookmark('pods');
      expect(w.tick()).toBe(0);
      expect(w.stalled()).toEqual([]);
    }
    w.stop();
  });

  it('a watch that goes silent just after a bookmark is named within 90 s, and relisted', async () => {
    const { timers, source, w } = await watching();
    timers.advance(BOOKMARK_EVERY_MS);
    source.bookmark('pods'); // the last byte before the connection goes half-open
    source.stallWatches();
    let caught: number | undefined;
    let relisted = 0;
    for (let s = 1; s <= 120 && caught === undefined; s++) {
      timers.advance(1_000);
      relisted += w.tick();
      if (w.stalled().length > 0) caught = s * 1_000;
    }
    console.log(`a silent watch with the defaults: named after ${caught} ms of silence`);
    expect(caught).toBeDefined();
    expect(caught!).toBeLessThan(90_000);
    expect(w.stalled()).toEqual([{ kind: 'pods', silentMs: caught }]);
    expect(relisted).toBe(1);
    w.stop();
  });
});
