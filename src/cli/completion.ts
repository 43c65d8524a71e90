// `rwx completion bash|zsh`: a shell completion script generated from the command table (commands.ts, flags.ts),
// so a new flag is completed as soon as it exists. Names in the cluster (nodes, namespaces, contexts) come from
// kubectl when it is installed, with the same kubeconfig; without it those values are simply not offered.
import type { Completion, FlagSpec } from './args.js';
import { parseFlags } from './args.js';
import { COMMANDS, helpText } from './commands.js';
import { FLAGS, type CommandName } from './flags.js';
import type { Command } from './io.js';
import { RwxError } from '../errors.js';

const HELP = helpText(
  'completion',
  `Prints a completion script for bash or zsh: commands, every flag of each, the values of -o and other fixed
choices, files, and node, namespace and context names from kubectl. Load it with
  source <(rwx completion bash)          (in ~/.bashrc)
  source <(rwx completion zsh)           (in ~/.zshrc, after compinit)`,
);

/** Shell snippets listing cluster names, one a line, for the dynamic completions. */
const KUBECTL: Record<'node' | 'namespace' | 'context', string> = {
  node: 'kubectl get nodes -o name 2>/dev/null | sed "s,^node/,,"',
  namespace: 'kubectl get namespaces -o name 2>/dev/null | sed "s,^namespace/,,"',
  context: 'kubectl config get-contexts -o name 2>/dev/null',
};

const entries = () => Object.entries(COMMANDS) as [CommandName, (typeof COMMANDS)[CommandName]][];
const flagList = (name: CommandName) => Object.entries(FLAGS[name]) as [string, FlagSpec][];

/** The bash words a completion offers, as a `COMPREPLY=(...)` line ('' when nothing can be offered). */
function bashReply(c: Completion | undefined): string {
  if (c === undefined) return '';
  if (c === 'file') return 'COMPREPLY=($(compgen -f -- "$cur"))';
  if (c === 'dir') return 'COMPREPLY=($(compgen -d -- "$cur"))';
  if (typeof c === 'string') return `COMPREPLY=($(compgen -W "$(${KUBECTL[c]})" -- "$cur"))`;
  return `COMPREPLY=($(compgen -W "${c.join(' ')}" -- "$cur"))`;
}

/** The bash completion script. */
export function bashScript(): string {
  const cases = entries().map(([name, spec]) => {
    const flags = flagList(name);
    const words = flags.flatMap(([long, f]) => [`--${long}`, ...(f.short ? [`-${f.short}`] : [])]);
    const valued = flags
      .filter(([, f]) => f.type === 'string')
      .map(
        ([long, f]) =>
          `        ${[`--${long}`, ...(f.short ? [`-${f.short}`] : [])].join('|')}) ${bashReply(f.complete) || ':'}; return ;;`,
      );
    return [
      `    ${name})`,
      ...(valued.length ? ['      case "$prev" in', ...valued, '      esac'] : []),
      `      if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "${words.join(' ')}" -- "$cur")); return; fi`,
      ...(spec.positionals ? [`      ${bashReply(spec.positionals)}`] : []),
      '      ;;',
    ].join('\n');
  });
  return `# rwx completion for bash. Load it with: source <(rwx completion bash)
_rwx() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "${Object.keys(COMMANDS).join(' ')} --help --version" -- "$cur"))
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases.join('\n')}
  esac
}
complete -o default -F _rwx rwx
`;
}

/** Text inside a zsh _arguments description: brackets and colons escaped, single quotes closed and reopened. */
function zshText(s: string): string {
  return s.replace(/[\\[\]:]/g, (c) => `\\${c}`).replace(/'/g, `'\\''`);
}

/** The zsh action for a value. */
function zshAction(c: Completion | undefined): string {
  if (c === undefined) return ' ';
  if (c === 'file') return '_files';
  if (c === 'dir') return '_files -/';
  if (typeof c === 'string') return `{compadd -- \${(f)"$(${KUBECTL[c].replace(/"/g, '\\"')})"}}`;
  return `(${c.join(' ')})`;
}

function zshFlag(long: string, f: FlagSpec): string {
  const names = f.short ? `{-${f.short},--${long}}` : `--${long}`;
  const exclusive = f.multiple ? '*' : f.short ? `(-${f.short} --${long})` : '';
  const desc = `[${zshText(f.help)}]`;
  const value = f.type === 'string' ? `:${zshText(f.arg ?? 'VALUE')}:${zshAction(f.complete)}` : '';
  const eq = f.type === 'string' && !f.short ? '=' : '';
  // '(excl)'{-o,--output}'[desc]:arg:action' or '--snapshot=[desc]:arg:action'
  return f.short ? `'${exclusive}'${names}'${desc}${value}'` : `'${exclusive}${names}${eq}${desc}${value}'`;
}

/** The zsh completion script. */
export function zshScript(): string {
  const described = entries().map(([name, c]) => `    '${name}:${zshText(c.summary)}'`);
  const cases = entries().map(([name, spec]) => {
    const args = flagList(name).map(([long, f]) => `        ${zshFlag(long, f)}`);
    if (spec.positionals) args.push(`        '*:argument:${zshAction(spec.positionals)}'`);
    return `    ${name})\n      _arguments -s \\\n${args.join(' \\\n')}\n      ;;`;
  });
  return `#compdef rwx
# rwx completion for zsh. Load it with: source <(rwx completion zsh)   (after compinit)
_rwx() {
  local -a commands
  commands=(
${described.join('\n')}
  )
  if (( CURRENT == 2 )); then
    _describe -t commands 'rwx command' commands
    return
  fi
  local cmd=$words[2]
  shift words
  (( CURRENT-- ))
  case $cmd in
${cases.join('\n')}
  esac
}
compdef _rwx rwx
`;
}

/** Runs `rwx completion bash|zsh`. */
export const run: Command = async (argv, io) => {
  const { values, positionals } = parseFlags(argv, FLAGS.completion, true);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const [shell, ...extra] = positionals;
  if (extra.length > 0 || (shell !== 'bash' && shell !== 'zsh'))
    throw new RwxError('USAGE', `expected one shell: bash or zsh${shell ? ` (got ${JSON.stringify(shell)})` : ''}`);
  io.stdout.write(shell === 'bash' ? bashScript() : zshScript());
  return 0;
};
