// The one import for reading a cluster: live (connect, readCluster, checkAccess) or from files (loadSnapshotFile),
// with every object projected (project) to the shapes in src/domain/objects.ts.
export {
  connect,
  openApi,
  type ApiConnection,
  type ConnectOptions,
  type KubeConnection,
  type KubeResponse,
} from './connect.js';
export {
  readCluster,
  listPath,
  listQuery,
  continueFromHead,
  headReader,
  listAnswer,
  apiError,
  PAGE_LIMIT,
  type ReadOptions,
} from './read.js';
export { checkAccess, type AccessCheck, type AccessResult } from './access.js';
export { loadSnapshotFile, parseSnapshotText, NOT_IN_SNAPSHOT } from './snapshot-file.js';
export { project, rfc3339 } from './project.js';
export { statusError, statusMessage, unreachableError } from './status.js';
