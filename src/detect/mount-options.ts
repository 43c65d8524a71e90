// Mount options that differ between nodes for the same volume (strand 4: one node mounting soft while the rest
// mount hard returns I/O errors on that node alone during a brief server pause). Pure, over node reports.
import {
  COMPARED_OPTIONS,
  UNSTATED_OPTION,
  type AgentReport,
  type ComparedOption,
  type NodeFinding,
} from '../domain/node-report.js';

/**
 * Mount options that differ between nodes for the same volume: for each volume and compared option, every value
 * held by fewer nodes than the most common one. Reports are one per node; a node without the volume is left out.
 */
export function mountOptionDifferences(
  reports: readonly AgentReport[],
  scope: { driver?: string } = {},
): NodeFinding[] {
  const byVolume = new Map<string, Map<string, Map<ComparedOption, string>>>();
  const simulated = reports.some((r) => r.simulated);
  for (const r of reports) {
    for (const v of r.mountOptions.volumes) {
      if (scope.driver && v.driver && v.driver !== scope.driver) continue;
      let nodes = byVolume.get(v.volume);
      if (!nodes) byVolume.set(v.volume, (nodes = new Map()));
      const opts = new Map<ComparedOption, string>();
      for (const o of COMPARED_OPTIONS) opts.set(o, v.options[o] ?? UNSTATED_OPTION);
      nodes.set(r.node, opts);
    }
  }
  const out: NodeFinding[] = [];
  for (const [volume, nodes] of [...byVolume].sort(([a], [b]) => (a < b ? -1 : 1))) {
    for (const option of COMPARED_OPTIONS) {
      const byValue = new Map<string, string[]>();
      for (const [node, opts] of nodes) {
        const v = opts.get(option) ?? UNSTATED_OPTION;
        byValue.set(v, [...(byValue.get(v) ?? []), node]);
      }
      if (byValue.size < 2) continue;
      const ranked = [...byValue].sort(([va, a], [vb, b]) => b.length - a.length || (va < vb ? -1 : 1));
      const [otherValue, majority] = ranked[0] as [string, string[]];
      for (const [value, held] of ranked.slice(1)) {
        out.push({
          kind: 'MOUNT_OPTIONS_DIFFER',
          volume,
          option,
          value,
          nodes: held.sort(),
          otherValue,
          otherNodes: majority.length,
          ...(simulated ? { simulated: true as const } : {}),
        });
      }
    }
  }
  return out;
}
