// What to do about pod volume mounts something holds busy (their unmount fails "device or resource busy"): release
// the holders a node agent named. One sentence for the drain advice and triage's UNPUBLISH_STUCK steps.
import { nameList } from '../domain/names.js';

/** The step releasing `held` (the agent's lines naming a holder) on `node`. */
export function releaseHeldStep(node: string, held: readonly string[]): string {
  return `Release what holds the mount on ${node} ("device or resource busy"): ${nameList(held, 3, '; ')}; the pods then finish terminating.`;
}
