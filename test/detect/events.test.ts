// Causes from events, and the volumes an event message names.
import { describe, expect, it } from 'vitest';
import type { KubeEvent } from '../../src/domain/objects.js';
import { causeFromEvents, toEvidence } from '../../src/detect/events.js';
import { volumesNamedIn } from '../../src/detect/storage-path.js';
import { ago, event, failedMount, MIN } from './builders.js';

const PLAIN =
  'Unable to attach or mount volumes: unmounted volumes=[d], unattached volumes=[], failed to process volumes=[]: timed out waiting for the condition';
const e = (reason: string, message: string, minutesAgo = 1): KubeEvent =>
  event('ns', 'p', reason, message, ago(minutesAgo * MIN));

describe('causeFromEvents', () => {
  it.each<[string, KubeEvent[], string]>([
    ['FailedMount', [e('FailedMount', failedMount(['data']))], 'storage'],
    ['FailedAttachVolume', [e('FailedAttachVolume', 'AttachVolume.Attach failed')], 'storage'],
    // reason not in the list but the message says MountVolume.*
    ['MountVolume message', [e('Failed', 'MountVolume.SetUp failed for volume "x"')], 'storage'],
    ['sandbox', [e('FailedCreatePodSandBox', 'failed to create pod sandbox')], 'network'],
    // the sandbox failed after the last mount failure: the mount got through, the network did not
    [
      'sandbox after mount',
      [e('FailedMount', failedMount(['d']), 10), e('FailedCreatePodSandBox', 'cni', 1)],
      'network',
    ],
    // mounts fail after the sandbox event: storage
    [
      'mount after sandbox',
      [e('FailedMount', failedMount(['d']), 1), e('FailedCreatePodSandBox', 'cni', 10)],
      'storage',
    ],
    // The pod's own settings (test/detect/pod-settings.test.ts cites the wording): configuration, not storage.
    [
      'SELinux label conflict',
      [e('FailedMount', `${failedMount(['d'])}: conflicting SELinux labels of volume pvc-1: "a" and "b"`)],
      'config',
    ],
    [
      'ownership change, its plain timeouts included',
      [
        e(
          'VolumePermissionChangeInProgress',
          'Setting volume ownership for u/volumes/x/pvc-1/mount, processed 9 files.',
        ),
        e('FailedMount', PLAIN),
      ],
      'config',
    ],
    // A real mount failure beside the ownership change is still storage; a plain timeout alone too.
    [
      'ownership change and a driver failure',
      [
        e(
          'VolumePermissionChangeInProgress',
          'Setting volume ownership for u/volumes/x/pvc-1/mount, processed 9 files.',
        ),
        e('FailedMount', 'MountVolume.SetUp failed for volume "pvc-1" : rpc error: code = Internal', 5),
      ],
      'storage',
    ],
    ['plain timeout alone', [e('FailedMount', PLAIN)], 'storage'],
    ['nothing', [e('Scheduled', 'Successfully assigned')], 'unknown'],
    ['no events', [], 'unknown'],
  ])('%s', (_name, events, want) => {
    expect(causeFromEvents(events)).toBe(want);
  });
});

describe('volumesNamedIn', () => {
  it.each([
    [failedMount(['data']), ['data']],
    [failedMount(['data', 'logs']), ['data', 'logs']],
    ['Unable to attach or mount volumes: unmounted volumes=[], unattached volumes=[x]', []],
    ['MountVolume.MountDevice failed for volume "pvc-a17c" : rpc error', ['pvc-a17c']],
    ['something else', []],
  ])('%s', (msg, want) => {
    expect(volumesNamedIn(msg)).toEqual(want);
  });
});

// The one rule for an event's last-seen time, count and age: the thread, `rwx scan` and `rwx triage` all use it.
describe('toEvidence', () => {
  const NOW = Date.parse('2026-11-30T09:15:00Z');
  const at = (s: number): string => new Date(NOW - s * 1000).toISOString();
  const base: KubeEvent = {
    metadata: { name: 'e', namespace: 'ns' },
    involvedObject: { kind: 'Pod', namespace: 'ns', name: 'p' },
    type: 'Warning',
    reason: 'FailedMount',
    message: 'm',
  };
  it.each<[string, Partial<KubeEvent>, { count: number; ageSeconds?: number }]>([
    // an old-style event: lastTimestamp and count
    ['deprecated fields only', { lastTimestamp: at(30), count: 4 }, { count: 4, ageSeconds: 30 }],
    // a new-style event repeated: series wins over the deprecated fields, as in kubectl describe
    [
      'series over deprecated',
      { lastTimestamp: at(600), count: 2, series: { count: 9, lastObservedTime: at(20) } },
      { count: 9, ageSeconds: 20 },
    ],
    // a series without a time still gives its count; the time falls back to lastTimestamp
    ['series count only', { lastTimestamp: at(40), count: 2, series: { count: 5 } }, { count: 5, ageSeconds: 40 }],
    // eventTime, then firstTimestamp, then creation when nothing newer is set
    ['eventTime only', { eventTime: at(70) }, { count: 1, ageSeconds: 70 }],
    ['firstTimestamp only', { firstTimestamp: at(80), count: null }, { count: 1, ageSeconds: 80 }],
    // no time at all: no age rather than a made-up one
    ['no time', { count: null, lastTimestamp: null }, { count: 1 }],
    // sub-second ages round down: 59.9 s is 59 s, like kubectl's ages
    ['rounds down', { lastTimestamp: new Date(NOW - 59_900).toISOString() }, { count: 1, ageSeconds: 59 }],
    // a clock skewed into the future is age 0, never negative
    ['future', { lastTimestamp: new Date(NOW + 5000).toISOString() }, { count: 1, ageSeconds: 0 }],
  ])('%s', (_name, fields, want) => {
    const ev = toEvidence({ ...base, ...fields }, NOW);
    expect(ev.count).toBe(want.count);
    expect(ev.ageSeconds).toBe(want.ageSeconds);
    expect(ev.lastSeen === undefined).toBe(want.ageSeconds === undefined);
  });

  it('keeps the mount output of a multi-line kubelet message on one line', () => {
    const message =
      'MountVolume.SetUp failed for volume "pvc-1" : mount failed: exit status 32\nOutput: mount.nfs: denied\n';
    expect(toEvidence({ ...base, message }, NOW).message).toBe(
      'MountVolume.SetUp failed for volume "pvc-1" : mount failed: exit status 32 Output: mount.nfs: denied',
    );
  });

  it('names the object it is given, else the involved object', () => {
    expect(toEvidence(base, NOW).object).toBe('Pod/ns/p');
    expect(toEvidence(base, NOW, 'PersistentVolumeClaim/ns/c').object).toBe('PersistentVolumeClaim/ns/c');
  });
});
