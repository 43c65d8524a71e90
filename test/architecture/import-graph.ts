// The import graph of src/, read with the TypeScript compiler's parser: every import and export-from, type-only
// ones included, dynamic import() and import('...') types too. Relative specifiers are resolved to files under
// src/ (".js" -> ".ts", a folder -> its index.ts); anything else is kept as the bare specifier.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** One import of one file. `to` is a path relative to the repository ("src/domain/clock.ts") or a bare name. */
export interface ImportEdge {
  from: string;
  to: string;
  /** The specifier as written. */
  spec: string;
  typeOnly: boolean;
  /** The names imported ("*" for a namespace import or a re-export of everything; none for a side-effect import). */
  names: string[];
}

/** The .ts files under `dir` (recursively), relative to `root`, sorted. */
export function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(relative(root, p));
    }
  };
  walk(join(root, dir));
  return out.sort();
}

/** Every import of `file` (relative to `root`). */
export function importsOf(root: string, file: string): ImportEdge[] {
  const text = readFileSync(join(root, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: ImportEdge[] = [];
  const add = (spec: string, typeOnly: boolean, names: string[] = ['*']): void => {
    out.push({ from: file, to: resolveSpec(root, file, spec), spec, typeOnly, names });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.importClause?.isTypeOnly ?? false, importedNames(node.importClause));
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) add(arg.literal.text, true);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

// The names an import clause binds, by their exported names ("default" for a default import, "*" for a namespace).
function importedNames(clause: ts.ImportClause | undefined): string[] {
  if (!clause) return [];
  const names = clause.name ? ['default'] : [];
  const bindings = clause.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
  else if (bindings) names.push(...bindings.elements.map((e) => (e.propertyName ?? e.name).text));
  return names;
}

// "./x.js" from src/a/b.ts -> "src/a/x.ts"; "../a" -> "src/a/index.ts"; bare names unchanged.
function resolveSpec(root: string, from: string, spec: string): string {
  if (!spec.startsWith('.')) return spec;
  const abs = resolve(root, dirname(from), spec);
  const candidates = [abs.replace(/\.js$/, '.ts'), `${abs}.ts`, join(abs, 'index.ts')];
  const found = candidates.find((c) => {
    try {
      return statSync(c).isFile();
    } catch {
      return false;
    }
  });
  return relative(root, found ?? abs);
}

/**
 * The strongly connected components of a directed graph with more than one node (or a node importing itself):
 * each is a set of nodes that import each other in a cycle. Tarjan's algorithm, linear in nodes and edges.
 */
export function cycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const strong = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      scc.push(w);
      if (w === v) break;
    }
    if (scc.length > 1 || graph.get(v)?.has(v)) out.push(scc.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) strong(v);
  return out;
}
