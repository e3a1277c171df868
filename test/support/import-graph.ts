/**
 * The import graph of src/, for the layering test (test/architecture.test.ts): every file's
 * imports read with the TypeScript parser (no type checking, so it is quick), relative ones
 * resolved to files, and the cycles of the graph.
 *
 * An import is any of: `import … from 'x'`, `import 'x'`, `import type …`, `export … from 'x'`,
 * `import x = require('x')`, a type `import('x').T`, a call `import('x')` and a call of what
 * `createRequire(…)` returns, `require('x')` alike. A call whose argument is not a string literal
 * cannot be followed: it is listed as `unreadable` for the test to refuse.
 */
import ts from 'typescript';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';

export interface Import {
  /** As written in the source. */
  specifier: string;
  /** 1-based line of the import. */
  line: number;
  /** Only types are taken (`import type`, `export type`, every name marked `type`, `import('x').T`). */
  typeOnly: boolean;
}

export interface SourceImports {
  imports: Import[];
  /** Lines of calls `import(…)`/`require(…)` whose argument is not a literal. */
  unreadable: number[];
}

/** The imports of one TypeScript source text. */
export function readImports(fileName: string, text: string): SourceImports {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const imports: Import[] = [];
  const unreadable: number[] = [];
  const lineOf = (n: ts.Node): number => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const add = (n: ts.Node, specifier: string, typeOnly: boolean): void => {
    imports.push({ specifier, line: lineOf(n), typeOnly });
  };
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      add(n, n.moduleSpecifier.text, importIsTypeOnly(n.importClause));
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      const named = n.exportClause && ts.isNamedExports(n.exportClause) ? n.exportClause.elements : undefined;
      add(n, n.moduleSpecifier.text, n.isTypeOnly || (named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly)));
    } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) {
      const e = n.moduleReference.expression;
      if (ts.isStringLiteral(e)) add(n, e.text, n.isTypeOnly);
      else unreadable.push(lineOf(n));
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) {
      add(n, n.argument.literal.text, true);
    } else if (ts.isCallExpression(n) && isLoaderCall(n)) {
      const arg = n.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) add(n, arg.text, false);
      else unreadable.push(lineOf(n));
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return { imports, unreadable };
}

function importIsTypeOnly(clause: ts.ImportClause | undefined): boolean {
  if (!clause) return false; // `import 'x'`: run for its effects
  if (clause.isTypeOnly) return true;
  if (clause.name) return false; // a default import that is not `import type`
  const b = clause.namedBindings;
  return b !== undefined && ts.isNamedImports(b) && b.elements.length > 0 && b.elements.every((e) => e.isTypeOnly);
}

/** `import(…)`, `require(…)`, `createRequire(…)(…)`. */
function isLoaderCall(n: ts.CallExpression): boolean {
  const callee = n.expression;
  if (callee.kind === ts.SyntaxKind.ImportKeyword) return true;
  if (ts.isIdentifier(callee) && callee.text === 'require') return true;
  return ts.isCallExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'createRequire';
}

const BUILTINS: ReadonlySet<string> = new Set(builtinModules);

/** A node built-in, written with or without `node:` (`node:fs/promises` → `node:fs`). */
export function builtinName(specifier: string): string | undefined {
  const bare = specifier.startsWith('node:') ? specifier.slice(5) : specifier;
  if (!BUILTINS.has(bare) && !specifier.startsWith('node:')) return undefined;
  return 'node:' + bare.split('/')[0];
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * The file a relative specifier names, as NodeNext resolves it for TypeScript sources: `./x.js`
 * is `./x.ts` (`.mjs`/`.cjs` alike); a specifier naming an existing file is that file.
 */
export function resolveRelative(fromFile: string, specifier: string): string | undefined {
  const target = resolve(dirname(fromFile), specifier);
  const candidates = [target.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts').replace(/\.cjs$/, '.cts'), target];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

export interface Edge {
  from: string;
  /** A file (relative to the repository) for a relative import; else the specifier as written. */
  to: string;
  specifier: string;
  line: number;
  typeOnly: boolean;
  kind: 'file' | 'builtin' | 'package' | 'unresolved';
}

export interface Graph {
  /** Every .ts file under the folder, relative to the repository root, `/`-separated. */
  files: string[];
  edges: Edge[];
  /** `file:line` of imports that cannot be followed. */
  unreadable: string[];
  /** Lines of each file. */
  lines: Map<string, number>;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? tsFiles(join(dir, e.name)) : /\.[cm]?ts$/.test(e.name) ? [join(dir, e.name)] : []))
    .sort();
}

const posix = (p: string): string => p.split(sep).join('/');

/** Reads every TypeScript file under `dir` (absolute) and the imports between them. */
export function importGraph(root: string, dir: string): Graph {
  const graph: Graph = { files: [], edges: [], unreadable: [], lines: new Map() };
  for (const abs of tsFiles(dir)) {
    const from = posix(relative(root, abs));
    const text = readFileSync(abs, 'utf8');
    graph.files.push(from);
    graph.lines.set(from, text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length);
    const { imports, unreadable } = readImports(abs, text);
    graph.unreadable.push(...unreadable.map((l) => `${from}:${l}`));
    for (const i of imports) {
      const base = { from, specifier: i.specifier, line: i.line, typeOnly: i.typeOnly };
      if (i.specifier.startsWith('.')) {
        const file = resolveRelative(abs, i.specifier);
        graph.edges.push(file ? { ...base, to: posix(relative(root, file)), kind: 'file' } : { ...base, to: i.specifier, kind: 'unresolved' });
      } else {
        const builtin = builtinName(i.specifier);
        graph.edges.push(builtin ? { ...base, to: builtin, kind: 'builtin' } : { ...base, to: packageName(i.specifier), kind: 'package' });
      }
    }
  }
  return graph;
}

export interface Cycle {
  /** One shortest cycle, as the imports taken. */
  path: Edge[];
  /** Every file tied up with it (its strongly connected component): more cycles when more files. */
  files: string[];
}

/**
 * The cycles of the file graph: for each strongly connected component of more than one file (or a
 * file importing itself), one shortest cycle through its first file.
 */
export function findCycles(graph: Graph): Cycle[] {
  const out = new Map<string, Edge[]>();
  for (const e of graph.edges) if (e.kind === 'file') (out.get(e.from) ?? out.set(e.from, []).get(e.from)!).push(e);
  const cycles: Cycle[] = [];
  for (const component of components(graph.files, out)) {
    const start = component[0]!;
    const selfLoop = (out.get(start) ?? []).find((e) => e.to === start);
    if (component.length === 1 && !selfLoop) continue;
    cycles.push({ path: selfLoop ? [selfLoop] : shortestCycle(start, new Set(component), out), files: component });
  }
  return cycles;
}

/** Tarjan's strongly connected components, each sorted, iterative (no deep recursion). */
function components(files: readonly string[], out: Map<string, Edge[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const result: string[][] = [];
  let next = 0;
  for (const root of files) {
    if (index.has(root)) continue;
    const work: { v: string; i: number }[] = [{ v: root, i: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const edges = out.get(top.v) ?? [];
      if (top.i < edges.length) {
        const w = edges[top.i++]!.to;
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) {
          low.set(top.v, Math.min(low.get(top.v)!, index.get(w)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(top.v)!));
      if (low.get(top.v) === index.get(top.v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== top.v);
        result.push(component.sort());
      }
    }
  }
  return result;
}

/** Breadth-first from `start` back to it, inside one component. */
function shortestCycle(start: string, inside: ReadonlySet<string>, out: Map<string, Edge[]>): Edge[] {
  const via = new Map<string, Edge>();
  const queue = [start];
  for (let k = 0; k < queue.length; k++) {
    for (const e of out.get(queue[k]!) ?? []) {
      if (!inside.has(e.to)) continue;
      if (e.to === start) {
        const path = [e];
        for (let at = e.from; at !== start; at = via.get(at)!.from) path.unshift(via.get(at)!);
        return path;
      }
      if (!via.has(e.to)) {
        via.set(e.to, e);
        queue.push(e.to);
      }
    }
  }
  throw new Error(`no cycle through ${start}`); // a component of two or more files always has one
}
