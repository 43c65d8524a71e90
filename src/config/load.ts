// Loads the configuration once at start: defaults < YAML file (--config or RWX_CONFIG) < environment < flags.
// Every problem is collected and reported together, each naming the variable (or file key) and the expected form.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { isClusterName } from '../domain/cluster.js';
import { RwxError } from '../errors.js';
import { CONFIG_KEYS, DEFAULT_CONFIG, boolWord, type ConfigKey } from './keys.js';
import { redisProblems } from './redis.js';
import { rawConfigSchema, toConfig, type Config, type RawConfig } from './schema.js';

/** Where loadConfig reads from. */
export interface LoadConfigOptions {
  /** Environment variables (process.env in production, a literal in tests). */
  env: Readonly<Record<string, string | undefined>>;
  /** YAML file path; when absent, env.RWX_CONFIG is used if set. */
  file?: string;
  /** Command-line flags, which win over everything. */
  flags?: { kubeconfig?: string; context?: string };
  /**
   * 'required' (default, what `rwx serve` needs): bot token, channel, and the signing secret in HTTP mode must be
   * set. 'optional': commands that never talk to Slack (scan, demo) skip those checks.
   */
  slack?: 'required' | 'optional';
}

/** A configuration error listing every problem found, one line each. */
export class ConfigError extends RwxError {
  readonly problems: readonly string[];
  constructor(problems: string[]) {
    const head = problems.length === 1 ? 'invalid configuration' : `${problems.length} configuration problems`;
    super('CONFIG', `${head}: ${problems.join('; ')}`);
    this.problems = Object.freeze([...problems]);
  }
}

const BY_ENV = new Map(CONFIG_KEYS.map((k) => [k.env, k.key]));
const KEYS = new Set<string>(CONFIG_KEYS.map((k) => k.key));

/** Reads and parses the YAML file into key -> value; problems are appended to `problems`. */
function readFile(path: string, problems: string[]): Partial<Record<ConfigKey, unknown>> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    problems.push(`${path}: cannot read the config file (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    return {};
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    problems.push(`${path}: not valid YAML (${(e instanceof Error ? e.message : String(e)).split('\n')[0]})`);
    return {};
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    problems.push(`${path}: expected a mapping of config keys (e.g. groupWait: 30s)`);
    return {};
  }
  const out: Partial<Record<ConfigKey, unknown>> = {};
  for (const [k, v] of Object.entries(doc as Record<string, unknown>)) {
    if (KEYS.has(k)) {
      if (v !== null) out[k as ConfigKey] = v; // `key:` with no value means unset
    } else {
      const hint = BY_ENV.get(k);
      problems.push(`${path}: unknown key "${k}"${hint ? ` (in the file, write ${hint})` : ''}`);
    }
  }
  return out;
}

/** Deep-freezes plain objects and arrays. */
function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const child of Object.values(v)) deepFreeze(child);
    Object.freeze(v);
  }
  return v;
}

/**
 * Loads and validates the configuration into a deep-frozen Config. Throws ConfigError (an RwxError with code
 * 'CONFIG') listing every problem, each prefixed by the variable or `file: key` it came from.
 */
export function loadConfig(opts: LoadConfigOptions): Config {
  const problems: string[] = [];
  const raw: Record<string, unknown> = { ...DEFAULT_CONFIG };
  const label = new Map<string, string>(CONFIG_KEYS.map((k) => [k.key, k.env]));
  const given = new Set<string>();

  const file = opts.file ?? (opts.env.RWX_CONFIG || undefined);
  if (file !== undefined) {
    for (const [k, v] of Object.entries(readFile(file, problems))) {
      raw[k] = v;
      given.add(k);
      label.set(k, `${file}: ${k}`);
    }
  }
  for (const info of CONFIG_KEYS) {
    const v = opts.env[info.env];
    if (v !== undefined && v !== '') {
      // Kubernetes ConfigMaps often carry empty values: treat them as unset
      raw[info.key] = v;
      given.add(info.key);
      label.set(info.key, info.env);
    }
  }
  if (opts.flags?.kubeconfig) {
    raw.kubeconfig = opts.flags.kubeconfig;
    label.set('kubeconfig', '--kubeconfig');
  }
  if (opts.flags?.context) {
    raw.kubeContext = opts.flags.context;
    label.set('kubeContext', '--context');
  }

  const order = (k: PropertyKey | undefined) => CONFIG_KEYS.findIndex((i) => i.key === k);
  const keyed: [number, string][] = [];
  const parsed = rawConfigSchema.safeParse(raw);
  for (const issue of parsed.success ? [] : parsed.error.issues) {
    const key = String(issue.path[0] ?? '');
    const secret = CONFIG_KEYS.some((k) => k.key === key && k.secret);
    const text = secret ? hide(key, issue.message, raw[key]) : issueText(issue.message, raw[key]);
    keyed.push([order(key), `${label.get(key) ?? key}: ${text}`]);
  }
  for (const [key, text] of fleetProblems(raw)) keyed.push([order(key), `${label.get(key) ?? key}: ${text}`]);
  for (const [key, text] of redisProblems(raw, given)) keyed.push([order(key), `${label.get(key) ?? key}: ${text}`]);
  if (parsed.success)
    for (const [key, text] of [...teamProblems(parsed.data), ...lockProblems(parsed.data, raw, label)])
      keyed.push([order(key), `${label.get(key) ?? key}: ${text}`]);
  if (opts.slack !== 'optional') {
    for (const [key, text] of slackProblems(raw)) keyed.push([order(key), `${label.get(key) ?? key}: ${text}`]);
  }
  // File problems first, then by key in table order, so the output reads like the reference docs.
  problems.push(...keyed.sort((x, y) => x[0] - y[0]).map(([, t]) => t));
  if (problems.length || !parsed.success) throw new ConfigError(problems);
  return deepFreeze(toConfig(parsed.data));
}

/** Adds the offending value to zod's generic messages; ours already quote it. Secrets are never shown. */
function issueText(message: string, value: unknown): string {
  if (message.includes('"') || value === undefined) return message;
  return `${JSON.stringify(value)}: ${message}`;
}

/** Replaces a secret value in a message (our messages quote what they reject) by its masked form. */
function hide(key: string, message: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') return message;
  const v = value.trim();
  // A URL's only secret is its password; the rest is what the reader needs to fix it.
  const masked =
    key === 'redisUrl' ? v.replace(/:[^:@/]*@/, ':****@') : `${/^(xox[a-z]-|xapp-)/.exec(v)?.[1] ?? ''}****`;
  return message.split(v).join(masked);
}

/** A team channel that is the incident channel would get every incident twice in one place. */
function teamProblems(r: RawConfig): [ConfigKey, string][] {
  const incident = r.slackChannel?.replace(/^#/, '');
  const same = r.teamChannels.find((t) => t.channel === incident);
  if (!same) return [];
  const entry = `"${same.namespace}=${same.channel}"`;
  return [['teamChannels', `${entry} is SLACK_CHANNEL, where every incident is posted already: give the team its own`]];
}

/**
 * A step holds its incident lock through a Slack call without renewing it: a lock that may expire before the call
 * gives up lets a second replica take the incident while the first still posts. `label` names the other key as given.
 */
function lockProblems(r: RawConfig, raw: Record<string, unknown>, label: Map<string, string>): [ConfigKey, string][] {
  if (r.lockTtl > r.slackRequestTimeout) return [];
  const said = (k: ConfigKey) => JSON.stringify(String(raw[k]).trim());
  // The timeout as given: its variable (or default), or its key in the file.
  const given = label.get('slackRequestTimeout') ?? 'RWX_SLACK_REQUEST_TIMEOUT';
  const suffix = ': slackRequestTimeout';
  const timeout = given.endsWith(suffix)
    ? `slackRequestTimeout (${said('slackRequestTimeout')}, in ${given.slice(0, -suffix.length)})`
    : `${given} (${said('slackRequestTimeout')})`;
  return [
    [
      'lockTtl',
      `${said('lockTtl')} must be longer than ${timeout}, the longest a Slack call may take (the incident lock is not renewed during one)`,
    ],
  ];
}

/** A fleet member must have a name that can be written as `@CLUSTER` and used in Redis keys. */
function fleetProblems(raw: Record<string, unknown>): [ConfigKey, string][] {
  const on = raw.fleet === true || boolWord(String(raw.fleet ?? '')) === true;
  if (!on) return [];
  const name = String(raw.clusterName ?? '').trim();
  if (isClusterName(name)) return [];
  return [
    [
      'clusterName',
      name === ''
        ? 'required with RWX_FLEET (expected a DNS label such as prod-eu-1)'
        : `"${name}" must be a DNS label with RWX_FLEET (lower-case letters, digits and -, e.g. prod-eu-1)`,
    ],
  ];
}

/** Combinations `rwx serve` cannot start with, checked on the raw values so they are reported with type errors. */
function slackProblems(raw: Record<string, unknown>): [ConfigKey, string][] {
  const set = (k: ConfigKey) => raw[k] !== undefined && String(raw[k]).trim() !== '';
  const out: [ConfigKey, string][] = [];
  if (!set('slackBotToken')) out.push(['slackBotToken', 'required (expected xoxb-...)']);
  if (!set('slackAppToken') && !set('slackSigningSecret')) {
    out.push(['slackSigningSecret', 'required in HTTP mode (or set SLACK_APP_TOKEN to use Socket Mode)']);
  }
  if (!set('slackChannel')) out.push(['slackChannel', 'required (expected a channel ID such as C0123ABCD)']);
  return out;
}
