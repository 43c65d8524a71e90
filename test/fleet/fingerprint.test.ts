// Fingerprints of a rollout change (pure): the same change in two clusters matches even when one pulls through a
// registry mirror; another change, another DaemonSet or nothing changed does not.
import { describe, expect, it } from 'vitest';
import type { TemplateChange } from '../../src/domain/incident.js';
import { describeChanges, fingerprintOf, imageName } from '../../src/fleet/fingerprint.js';

const DS = { namespace: 'kube-system', name: 'ebs-csi-node' };
const prop: TemplateChange = {
  category: 'storage',
  container: 'ebs-plugin',
  field: 'volumeMount kubelet-dir mountPropagation',
  from: 'Bidirectional',
  to: 'none',
  text: 'kubelet-dir: mountPropagation Bidirectional -> none',
};
const image = (registry: string): TemplateChange => ({
  category: 'image',
  container: 'ebs-plugin',
  field: 'ebs-plugin image',
  from: `${registry}/aws-ebs-csi-driver:v1.30.0`,
  to: `${registry}/aws-ebs-csi-driver:v1.31.0`,
  text: 'ebs-plugin: image ...',
});
const id = (changes: TemplateChange[], ds = DS, driver = 'ebs.csi.aws.com') => fingerprintOf(ds, driver, changes)?.id;

describe('fingerprintOf', () => {
  it('is the same through a registry mirror, and in any order', () => {
    expect(id([prop, image('public.ecr.aws/ebs-csi-driver')])).toBe(
      id([image('registry.example.com/mirror/ebs-csi-driver'), prop]),
    );
  });

  it.each([
    // a different change
    [[{ ...prop, to: 'HostToContainer' }, image('r')]],
    // the image change alone
    [[image('r')]],
  ])('differs for another change %#', (changes) => {
    expect(id(changes)).not.toBe(id([prop, image('r')]));
  });

  it('differs for another DaemonSet or driver; nothing changed has none', () => {
    expect(id([prop], { namespace: 'kube-system', name: 'other' })).not.toBe(id([prop]));
    expect(id([prop], DS, 'efs.csi.aws.com')).not.toBe(id([prop]));
    expect(fingerprintOf(DS, 'ebs.csi.aws.com', [])).toBeUndefined();
  });

  it.each([
    ['public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.31.0', 'aws-ebs-csi-driver:v1.31.0'],
    ['aws-ebs-csi-driver:v1.31.0', 'aws-ebs-csi-driver:v1.31.0'],
    ['localhost:5000/x/driver@sha256:abc', 'driver@sha256:abc'],
  ])('imageName(%s) = %s', (image, want) => {
    expect(imageName(image)).toBe(want);
  });

  it('describes the storage change first, images without registry', () => {
    expect(describeChanges([image('mirror.example.com/x'), prop])).toBe(
      'kubelet-dir: mountPropagation Bidirectional -> none; ebs-plugin image aws-ebs-csi-driver:v1.30.0 -> aws-ebs-csi-driver:v1.31.0',
    );
  });
});
