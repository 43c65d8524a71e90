// Triage: classify every ReadWriteMany claim by strand, preflight first; renderers for table and JSON.
export { triage, needsAttention } from './triage.js';
export { renderTable, renderJson } from './render.js';
export { NEEDED } from './preflight.js';
export * from './types.js';
