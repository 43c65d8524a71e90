// Parsing of `/rwx` slash-command text. Pure and total: every input, however hostile, becomes a ParsedCommand;
// malformed text becomes `{kind: 'usage'}` with a one-line reason, never an exception.
//
// Grammar:
//   /rwx triage [NAMESPACE | NAMESPACE/CLAIM | node NODE | driver DRIVER] [public]
//   /rwx drain NODE [public]
//   /rwx node NODE [public]
//   /rwx status [public]
//   /rwx help            (also: empty text)
// Any of the first three may name the cluster it is about with one `@CLUSTER` word (by convention the last one:
// `/rwx drain node-19 @prod-eu-1`); where several clusters share the Slack app (src/fleet) it routes the command.
// `public` is recognised only as the last word (so `/rwx triage public public` triages namespace "public" in
// the channel), and `/rwx drain public` asks about a node named "public".
import { isClusterName } from '../domain/cluster.js';
import { decodeSlackEntities, shorten } from '../render/escape.js';
import { isValidName, nameRule, type NameKind } from './names.js';

/** What part of the cluster a triage covers. */
export type TriageScope =
  | { kind: 'all' }
  | { kind: 'namespace'; namespace: string }
  | { kind: 'claim'; namespace: string; claim: string }
  | { kind: 'node'; node: string }
  | { kind: 'driver'; driver: string };

/** A parsed `/rwx` command; `public` means answer in the channel rather than ephemerally. */
/** `cluster`: the `@CLUSTER` word, when the command names one. */
export type ParsedCommand =
  | { kind: 'triage'; scope: TriageScope; public: boolean; cluster?: string }
  | { kind: 'drain'; node: string; public: boolean; cluster?: string }
  | { kind: 'node'; node: string; public: boolean; cluster?: string }
  | { kind: 'status'; public: boolean; cluster?: string }
  | { kind: 'help' }
  | { kind: 'usage'; error: string };

/** Longest command text we look at; anything longer is refused before it is split or matched. */
export const MAX_TEXT = 600;

/** Parses slash-command text (as Slack sends it, entities encoded). Never throws. */
export function parseCommand(rawText: string | undefined | null): ParsedCommand {
  const raw = typeof rawText === 'string' ? rawText : '';
  if (raw.length > MAX_TEXT * 2) return usage(`the command text is too long (${raw.length} characters)`);
  const text = decodeSlackEntities(raw).trim();
  if (text.length > MAX_TEXT) return usage(`the command text is too long (${text.length} characters)`);
  const all = text.length === 0 ? [] : text.split(/\s+/u);
  const named = all.filter((w) => w.startsWith('@'));
  const words = all.filter((w) => !w.startsWith('@'));
  const [sub, ...rest] = words;
  if (sub === undefined && named.length === 0) return { kind: 'help' };
  if (named.length > 1) return usage('name one cluster at most (one `@CLUSTER`)');
  const cluster = named[0]?.slice(1);
  if (cluster !== undefined && !isClusterName(cluster))
    return usage(`"${show(cluster)}" is not a cluster name: after @ it must be a DNS label such as prod-eu-1`);
  const cmd = parseWords(sub, rest);
  if (cluster === undefined || cmd.kind === 'usage') return cmd;
  if (cmd.kind === 'help') return usage('`help` is the same for every cluster: leave out `@CLUSTER`');
  return { ...cmd, cluster };
}

function parseWords(sub: string | undefined, rest: string[]): ParsedCommand {
  if (sub === undefined) return usage('a command is needed before `@CLUSTER` (e.g. `/rwx status @prod-eu-1`)');
  switch (sub.toLowerCase()) {
    case 'help':
      return rest.length === 0 ? { kind: 'help' } : usage('`help` takes no arguments');
    case 'status': {
      const { args, pub } = takePublic(rest);
      return args.length === 0
        ? { kind: 'status', public: pub }
        : usage(`\`status\` takes no arguments (got "${show(args[0])}")`);
    }
    case 'drain':
      return parseDrain(rest);
    case 'node':
      return parseNode(rest);
    case 'triage':
      return parseTriage(rest);
    default:
      return usage(`unknown subcommand "${show(sub)}"`);
  }
}

function parseDrain(rest: string[]): ParsedCommand {
  // A lone "public" is a node name, not the flag: drain always needs a node.
  const { args, pub } = rest.length >= 2 ? takePublic(rest) : { args: rest, pub: false };
  if (args.length === 0) return usage('`drain` needs a NODE name');
  if (args.length > 1) return usage('`drain` takes one NODE name');
  const node = args[0] ?? '';
  const bad = check('node', node);
  return bad ? usage(bad) : { kind: 'drain', node, public: pub };
}

function parseNode(rest: string[]): ParsedCommand {
  // As drain: a lone "public" is a node name.
  const { args, pub } = rest.length >= 2 ? takePublic(rest) : { args: rest, pub: false };
  if (args.length === 0) return usage('`node` needs a NODE name');
  if (args.length > 1) return usage('`node` takes one NODE name');
  const node = args[0] ?? '';
  const bad = check('node', node);
  return bad ? usage(bad) : { kind: 'node', node, public: pub };
}

function parseTriage(rest: string[]): ParsedCommand {
  const { args, pub } = takePublic(rest);
  const [first, second, ...extra] = args;
  if (first === undefined) return { kind: 'triage', scope: { kind: 'all' }, public: pub };
  const keyword = first.toLowerCase();
  if (keyword === 'node' || keyword === 'driver') {
    if (second === undefined) return usage(`\`triage ${keyword}\` needs a ${keyword.toUpperCase()} name`);
    if (extra.length > 0) return usage(`too many arguments after \`triage ${keyword} ${show(second)}\``);
    const bad = check(keyword, second);
    if (bad) return usage(bad);
    const scope: TriageScope = keyword === 'node' ? { kind: 'node', node: second } : { kind: 'driver', driver: second };
    return { kind: 'triage', scope, public: pub };
  }
  if (second !== undefined) return usage(`too many arguments after \`triage ${show(first)}\``);
  const slash = first.indexOf('/');
  if (slash < 0) {
    const bad = check('namespace', first);
    return bad ? usage(bad) : { kind: 'triage', scope: { kind: 'namespace', namespace: first }, public: pub };
  }
  const namespace = first.slice(0, slash);
  const claim = first.slice(slash + 1);
  const bad = check('namespace', namespace) ?? check('claim', claim);
  return bad ? usage(bad) : { kind: 'triage', scope: { kind: 'claim', namespace, claim }, public: pub };
}

/** Removes a trailing `public` flag. */
function takePublic(words: string[]): { args: string[]; pub: boolean } {
  const last = words[words.length - 1];
  if (last !== undefined && last.toLowerCase() === 'public') return { args: words.slice(0, -1), pub: true };
  return { args: words, pub: false };
}

/** A one-line reason when `name` is not a valid name of this kind, else undefined. */
function check(kind: NameKind, name: string): string | undefined {
  if (isValidName(kind, name)) return undefined;
  return `"${show(name)}" is not a valid ${kind} name: it must be ${nameRule(kind)}`;
}

/** User text quoted in an error: shortened here, escaped by the renderer. */
function show(s: string | undefined): string {
  return shorten(s ?? '', 60);
}

function usage(error: string): ParsedCommand {
  return { kind: 'usage', error };
}
