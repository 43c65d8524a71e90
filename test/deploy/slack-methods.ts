// Finds the Slack Web API methods a TypeScript source calls: string literals naming a method ('chat.update',
// as passed to apiCall or a wrapper) and client property calls (client.chat.postMessage(...)).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// Slack Web API method families (the part before the first dot).
const FAMILIES = [
  'admin',
  'api',
  'apps',
  'assistant',
  'auth',
  'bookmarks',
  'bots',
  'calls',
  'canvases',
  'chat',
  'conversations',
  'dialog',
  'dnd',
  'emoji',
  'files',
  'functions',
  'migration',
  'oauth',
  'openid',
  'pins',
  'reactions',
  'reminders',
  'rtm',
  'search',
  'stars',
  'team',
  'tooling',
  'usergroups',
  'users',
  'views',
  'workflows',
].join('|');
const LITERAL = new RegExp(`(['"\`])((?:${FAMILIES})(?:\\.[a-z][A-Za-z]*)+)\\1`, 'g');
const CLIENT_CALL = new RegExp(`\\b\\w*[cC]lient\\??\\.((?:${FAMILIES})(?:\\??\\.[a-z][A-Za-z]*)+)\\s*\\(`, 'g');
const NOT_METHODS = /\.(js|ts|json|ya?ml|md|txt|html|css)$/;

/** Removes comments, so a method named in a comment is not counted as called. Keeps string contents. */
function stripComments(src: string): string {
  return src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** Slack methods named in one source text. */
export function slackMethodsIn(src: string): string[] {
  const code = stripComments(src);
  const found = new Set<string>();
  for (const m of code.matchAll(LITERAL)) if (m[2] && !NOT_METHODS.test(m[2])) found.add(m[2]);
  for (const m of code.matchAll(CLIENT_CALL)) if (m[1]) found.add(m[1].replace(/\?/g, ''));
  return [...found].sort();
}

/** Every .ts file under `dir`, relative to `root`. */
export function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

/** Method -> files (relative to root) that name it, over every .ts file under `dir` except `exclude`. */
export function slackMethodsUnder(root: string, dir: string, exclude: string[] = []): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of sourceFiles(root, dir).filter((x) => !exclude.includes(x))) {
    for (const m of slackMethodsIn(readFileSync(join(root, f), 'utf8'))) out.set(m, [...(out.get(m) ?? []), f]);
  }
  return out;
}
