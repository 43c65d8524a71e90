// The flags of every rwx command, declared once: parsing (args.ts), --help, shell completion and the table test of
// every flag's errors all read these. Shared groups (where the cluster comes from, evaluation settings) are spread
// into the commands that take them, so the same flag means the same thing everywhere.
import type { FlagSpec, FlagSpecs } from './args.js';
import { SNAPSHOT_MAX_MB } from '../kube/input-limit.js';
import { CLUSTER_NAME } from '../domain/cluster.js';

/** `-h, --help`, on every command. */
export const HELP_FLAG = { help: { type: 'boolean', short: 'h', help: 'this help' } } as const satisfies FlagSpecs;

/** `-o, --output FORMAT` with the formats a command offers (the first is the default). */
export function outputFlag<const F extends readonly string[]>(formats: F) {
  return {
    output: {
      type: 'string',
      short: 'o',
      arg: 'FORMAT',
      check: { kind: 'oneOf', values: formats },
      help: `${formats.join(', ')} (default ${formats[0]})`,
      complete: formats,
    },
  } as const satisfies FlagSpecs;
}

const KUBECONFIG = {
  type: 'string',
  arg: 'FILE',
  help: 'kubeconfig file (default: KUBECONFIG, its files merged as kubectl does, then ~/.kube/config, then in-cluster)',
  complete: 'file',
} as const satisfies FlagSpec;
const CONTEXT = {
  type: 'string',
  arg: 'NAME',
  help: 'kubeconfig context (default: its current-context)',
  complete: 'context',
} as const satisfies FlagSpec;

/** How to reach the API server: `--kubeconfig`, `--context`. */
export const CONNECT_FLAGS = { kubeconfig: KUBECONFIG, context: CONTEXT } as const satisfies FlagSpecs;

/** kubectl's `--request-timeout`, on every command that reads the cluster. */
export const REQUEST_TIMEOUT_FLAG = {
  'request-timeout': {
    type: 'string',
    arg: 'DURATION',
    check: { kind: 'timeout' },
    help: 'give up on an API request after this long (5s, 1m; a bare number is seconds; 0: never; default: after 60s without an answer)',
  },
} as const satisfies FlagSpecs;

/** Where a read command connects: CONNECT_FLAGS and REQUEST_TIMEOUT_FLAG. */
export const READ_CONNECT_FLAGS = { ...CONNECT_FLAGS, ...REQUEST_TIMEOUT_FLAG } as const satisfies FlagSpecs;

/** Where a read command gets the cluster: a snapshot file or the API, optionally one namespace. */
export const SOURCE_FLAGS = {
  snapshot: {
    type: 'string',
    arg: 'FILE|-',
    help: `read \`kubectl get ... -o json|yaml\` output instead of the API (- = stdin; at most ${SNAPSHOT_MAX_MB} MB)`,
    complete: 'file',
  },
  ...READ_CONNECT_FLAGS,
  namespace: {
    type: 'string',
    short: 'n',
    arg: 'NS',
    help: 'only workload objects (pods, claims, events, jobs, cronjobs) in NS',
    complete: 'namespace',
    check: { kind: 'pattern', pattern: /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, expected: 'a namespace name' },
  },
  'all-namespaces': { type: 'boolean', short: 'A', help: 'every namespace (the default; cannot be combined with -n)' },
} as const satisfies FlagSpecs;

/** Evaluation settings shared by scan and drain-check. */
export const EVAL_FLAGS = {
  'stuck-after': {
    type: 'string',
    arg: 'DURATION',
    check: { kind: 'duration' },
    help: 'a pod is stuck after this long (default 5m)',
  },
  plugin: {
    type: 'string',
    multiple: true,
    arg: 'DRIVER=NS/DAEMONSET',
    check: { kind: 'pattern', pattern: /^[^=\s]+=[a-z0-9.-]+\/[a-z0-9.-]+$/, expected: 'DRIVER=NAMESPACE/DAEMONSET' },
    help: 'node plugin DaemonSet of a driver, when its registration path does not name it',
  },
  now: {
    type: 'string',
    arg: 'TIME',
    check: { kind: 'time' },
    help: 'evaluate as of this RFC 3339 time (default: now; for a saved snapshot)',
  },
} as const satisfies FlagSpecs;

const WHOLE = (min: number, max: number) => ({ kind: 'int', min, max }) as const;

/** The commands that read a cluster (or a file `rwx capture` wrote): what `rwx capture --for` takes. */
export const READ_COMMAND_NAMES = ['triage', 'scan', 'drain-check', 'diff', 'policy'] as const;

/** Every command's flags, by command name. */
export const FLAGS = {
  triage: {
    ...SOURCE_FLAGS,
    driver: { type: 'string', arg: 'NAME', help: 'only claims whose PV (or StorageClass) uses this CSI driver' },
    now: {
      ...EVAL_FLAGS.now,
      help: 'measure ages as of this RFC 3339 time (default: the clock; for --snapshot, the newest time in the file)',
    },
    ...outputFlag(['table', 'wide', 'json', 'yaml', 'name']),
    ...HELP_FLAG,
  },
  scan: { ...SOURCE_FLAGS, ...EVAL_FLAGS, ...outputFlag(['table', 'wide', 'json', 'yaml', 'name']), ...HELP_FLAG },
  'drain-check': {
    ...SOURCE_FLAGS,
    ...EVAL_FLAGS,
    redis: {
      type: 'string',
      arg: 'URL',
      help: "the bot's Redis, to consult its open incidents (default REDIS_URL; neither: not consulted)",
    },
    'redis-prefix': {
      type: 'string',
      arg: 'PREFIX',
      help: "the bot's key prefix (default RWX_REDIS_PREFIX, else rwx)",
    },
    cluster: {
      type: 'string',
      arg: 'NAME',
      check: { kind: 'pattern', pattern: CLUSTER_NAME, expected: 'a cluster name (a DNS label)' },
      help: 'in a fleet, the cluster whose open incidents to consult (default RWX_CLUSTER_NAME when RWX_FLEET is on)',
    },
    ...outputFlag(['table', 'json', 'yaml']),
    ...HELP_FLAG,
  },
  diff: {
    ...SOURCE_FLAGS,
    // Here -n picks the DaemonSet, not workload objects (rwx diff reads no pods).
    namespace: {
      ...SOURCE_FLAGS.namespace,
      help: "the DaemonSet's namespace (default: the kubeconfig context's namespace, else every namespace)",
    },
    'all-namespaces': {
      ...SOURCE_FLAGS['all-namespaces'],
      help: "look for the DaemonSet in every namespace, not the context's (cannot be combined with -n)",
    },
    from: { type: 'string', arg: 'REV', check: WHOLE(1, Number.MAX_SAFE_INTEGER), help: 'older revision number' },
    to: { type: 'string', arg: 'REV', check: WHOLE(1, Number.MAX_SAFE_INTEGER), help: 'newer revision number' },
    ...outputFlag(['table', 'json', 'yaml']),
    ...HELP_FLAG,
  },
  capture: {
    ...READ_CONNECT_FLAGS,
    namespace: {
      ...SOURCE_FLAGS.namespace,
      help: 'only workload objects (pods, claims, events, jobs, cronjobs) of NS',
    },
    'all-namespaces': SOURCE_FLAGS['all-namespaces'],
    for: {
      type: 'string',
      arg: 'COMMAND',
      check: { kind: 'oneOf', values: READ_COMMAND_NAMES },
      help: `only the kinds one command reads: ${READ_COMMAND_NAMES.join(', ')} (default: every kind any of them reads)`,
      complete: READ_COMMAND_NAMES,
    },
    ...HELP_FLAG,
  },
  policy: {
    filename: {
      type: 'string',
      short: 'f',
      multiple: true,
      arg: 'FILE|DIR|-',
      help: 'manifests: what --snapshot reads (YAML documents, JSON, Lists); a directory: its *.yaml, *.yml, *.json',
      complete: 'file',
    },
    cluster: { type: 'boolean', help: 'check the live DaemonSets instead (--kubeconfig, --context)' },
    ...READ_CONNECT_FLAGS,
    'require-plugin': { type: 'boolean', help: 'exit 2 when the input holds no CSI node plugin at all' },
    ...outputFlag(['table', 'json', 'yaml']),
    ...HELP_FLAG,
  },
  gate: {
    'storage-class': {
      type: 'string',
      arg: 'SC',
      help: 'StorageClass of the fresh claims (required unless --cleanup)',
    },
    nodes: { type: 'string', arg: 'a,b', help: 'only these nodes (a cordoned or NotReady one is listed as skipped)' },
    namespace: {
      type: 'string',
      short: 'n',
      arg: 'NS',
      help: 'where the probes run (default rwx-gate)',
      complete: 'namespace',
    },
    timeout: { type: 'string', arg: 'DURATION', check: { kind: 'duration' }, help: 'per node (default 5m)' },
    parallel: { type: 'string', arg: 'N', check: WHOLE(1, 32), help: 'nodes probed at once (default 3)' },
    image: { type: 'string', arg: 'IMAGE', help: 'probe image with sh, grep, cat (default busybox:1.36)' },
    size: { type: 'string', arg: 'QUANTITY', help: 'claim size (default 1Gi)' },
    'access-mode': {
      type: 'string',
      arg: 'MODE',
      check: { kind: 'oneOf', values: ['ReadWriteOnce', 'ReadWriteMany', 'ReadWriteOncePod'] },
      help: 'claim access mode (default ReadWriteOnce)',
      complete: ['ReadWriteOnce', 'ReadWriteMany', 'ReadWriteOncePod'],
    },
    cleanup: { type: 'boolean', help: 'delete leftovers of earlier runs first' },
    ...CONNECT_FLAGS,
    ...outputFlag(['table', 'json', 'yaml']),
    ...HELP_FLAG,
  },
  serve: {
    config: { type: 'string', arg: 'FILE', help: 'YAML configuration (environment variables win)', complete: 'file' },
    ...CONNECT_FLAGS,
    ...HELP_FLAG,
  },
  demo: {
    scenario: {
      type: 'string',
      arg: 'FILE',
      help: 'scenario YAML (default scenarios/propagation-loss.yaml)',
      complete: 'file',
    },
    speed: {
      type: 'string',
      arg: 'N',
      check: { kind: 'number', min: 0, max: 1000 },
      help: 'time runs N times faster (default 30)',
    },
    redis: { type: 'string', arg: 'URL', help: 'Redis URL (default REDIS_URL, else redis://127.0.0.1:6379)' },
    follow: { type: 'boolean', help: 'keep running after every incident is resolved (Ctrl-C to stop)' },
    fleet: {
      type: 'boolean',
      help: 'three clusters on one Redis: the same bad revision in two, the third warned before it breaks',
    },
    ...HELP_FLAG,
  },
  sim: {
    port: { type: 'string', arg: 'N', check: { kind: 'port' }, help: 'listen on port N (default: a free port)' },
    'admin-port': {
      type: 'string',
      arg: 'N',
      check: { kind: 'port' },
      help: 'fault knobs on port N (default: a free port)',
    },
    speed: {
      type: 'string',
      arg: 'N',
      check: { kind: 'number', min: 0, max: 1000 },
      help: 'timeline N times faster (default 1)',
    },
    tls: { type: 'boolean', help: 'serve HTTPS with a throwaway self-signed certificate' },
    ...HELP_FLAG,
  },
  agent: {
    once: {
      type: 'boolean',
      help: 'scan once, print the report and exit (0 nothing needs attention, 2 something does)',
    },
    ...outputFlag(['text', 'json', 'yaml']),
    port: { type: 'string', arg: 'N', check: { kind: 'port' }, help: 'without --once: serve on port N (default 9743)' },
    'kubelet-dir': {
      type: 'string',
      arg: 'DIR',
      help: 'the kubelet root as the host names it (default /var/lib/kubelet)',
      complete: 'dir',
    },
    'host-pid': {
      type: 'string',
      arg: 'N',
      check: WHOLE(1, 4_194_304),
      help: "a process in the host's mount namespace (default 1)",
    },
    proc: { type: 'string', arg: 'DIR', help: 'the proc filesystem to read (default /proc)', complete: 'dir' },
    'host-root': { type: 'string', arg: 'DIR', help: "where the host's / is mounted (default /)", complete: 'dir' },
    node: {
      type: 'string',
      arg: 'NAME',
      help: 'the node name in the report (default: NODE_NAME, else the hostname)',
      complete: 'node',
    },
    ...HELP_FLAG,
  },
  node: {
    ...READ_CONNECT_FLAGS,
    'agent-url': {
      type: 'string',
      arg: 'URL',
      check: { kind: 'url' },
      help: 'read the report here (a port-forward); the API is not used',
    },
    ...outputFlag(['text', 'json', 'yaml']),
    timeout: {
      type: 'string',
      arg: 'DURATION',
      check: { kind: 'duration' },
      help: 'how long to wait for the agent (default 5s)',
    },
    ...HELP_FLAG,
  },
  config: {
    config: { type: 'string', short: 'c', arg: 'FILE', help: 'YAML configuration file', complete: 'file' },
    ...CONNECT_FLAGS,
    ...HELP_FLAG,
  },
  version: { ...outputFlag(['text', 'json', 'yaml']), ...HELP_FLAG },
  completion: { ...HELP_FLAG },
} as const satisfies Record<string, FlagSpecs>;

/** A command name. */
export type CommandName = keyof typeof FLAGS;
