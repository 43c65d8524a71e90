// Causes from events, and the volumes an event message names.
import { describe, expect, it } from 'vitest';
import type { KubeEvent } from '../../src/domain/objects.js';
import { causeFromEvents } from '../../src/detect/events.js';
import { volumesNamedIn } from '../../src/detect/storage-path.js';
import { ago, event, failedMount, MIN } from './builders.js';

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
