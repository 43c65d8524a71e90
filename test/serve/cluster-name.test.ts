import { describe, expect, it } from 'vitest';
import type { Incident } from '../../src/domain/incident.js';
import { namedNotifier, withClusterName } from '../../src/serve/cluster-name.js';

const incident = { key: 'node/node-7', title: 'node-7: stuck mounts follow the node' } as Incident;

describe('cluster name in incident titles', () => {
  it.each([
    // configured: every title names the cluster
    ['prod-eu-1', '[prod-eu-1] node-7: stuck mounts follow the node'],
    // not configured: titles unchanged
    [undefined, 'node-7: stuck mounts follow the node'],
    ['', 'node-7: stuck mounts follow the node'],
  ])('%j', (name, title) => {
    expect(withClusterName([incident], name).map((i) => i.title)).toEqual([title]);
  });

  it("the notifier wrapper renames what reaches the notifier, not the pipeline's own incidents", async () => {
    const seen: string[] = [];
    const inner = {
      submit: async (incs: Incident[]) => {
        seen.push(...incs.map((i) => i.title));
      },
      close: async () => undefined,
    };
    const incs = [incident];
    await namedNotifier(inner, 'staging').submit(incs, 0);
    expect(seen).toEqual(['[staging] node-7: stuck mounts follow the node']);
    expect(incs[0]!.title).toBe('node-7: stuck mounts follow the node');
  });
});
