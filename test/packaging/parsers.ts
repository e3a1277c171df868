/**
 * Small readers for the packaging files, for the tests beside this file: the Dockerfile (logical
 * lines, stages), .dockerignore matching, the subset of YAML that compose.yaml is written in, a
 * systemd unit, and the options of the real `vts serve` (its --help). No dependency: each reader
 * knows just enough, and refuses what it does not know instead of guessing.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// --- Dockerfile ---

export interface Instruction {
  /** Upper-cased: FROM, RUN, COPY, … */
  keyword: string;
  /** Everything after the keyword, continuation lines joined. */
  args: string;
  /** Line number of the instruction's first line. */
  line: number;
}

export interface Stage {
  index: number;
  image: string;
  name?: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  instructions: Instruction[];
  stages: Stage[];
}

/**
 * Logical instructions: comment lines dropped (also inside a continuation, as Docker does), lines
 * ending in a backslash joined with the next, then split into stages at each FROM.
 */
export function parseDockerfile(text: string): Dockerfile {
  const instructions: Instruction[] = [];
  let current: { text: string; line: number } | null = null;
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (/^\s*#/.test(line)) return;
    if (current === null && line.trim() === '') return;
    const continued = /\\\s*$/.test(line);
    const body = continued ? line.replace(/\\\s*$/, '') : line;
    if (current === null) current = { text: body, line: i + 1 };
    else current.text += body;
    if (continued) return;
    const m = /^\s*([A-Za-z]+)\s+([\s\S]*)$/.exec(current.text);
    if (!m) throw new Error(`Dockerfile line ${current.line}: not an instruction: ${current.text}`);
    instructions.push({ keyword: m[1]!.toUpperCase(), args: m[2]!.trim(), line: current.line });
    current = null;
  });
  if (current !== null) throw new Error('Dockerfile ends inside a continuation line');
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const { rest } = splitFlags(ins.args);
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      if (!m) throw new Error(`Dockerfile line ${ins.line}: FROM ${ins.args}`);
      stages.push({ index: stages.length, image: m[1]!, name: m[2]?.toLowerCase(), instructions: [] });
    } else if (stages.length === 0) {
      if (ins.keyword !== 'ARG') throw new Error(`Dockerfile line ${ins.line}: ${ins.keyword} before the first FROM`);
    } else {
      stages.at(-1)!.instructions.push(ins);
    }
  }
  return { instructions, stages };
}

/** Leading `--name=value` / `--name` flags of an instruction, and the rest. */
export function splitFlags(args: string): { flags: Map<string, string>; rest: string } {
  const flags = new Map<string, string>();
  let rest = args;
  for (let m = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(rest); m; m = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(rest)) {
    flags.set(m[1]!, m[2] ?? '');
    rest = rest.slice(m[0].length);
  }
  return { flags, rest: rest.trim() };
}

/** The words of an exec-form (JSON array) argument list, or null for the shell form. */
export function execForm(args: string): string[] | null {
  if (!args.startsWith('[')) return null;
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((w) => typeof w === 'string')) throw new Error(`not a JSON array of strings: ${args}`);
  return parsed as string[];
}

/** The words of an instruction's arguments: exec form, or the shell form split at whitespace. */
export function words(args: string): string[] {
  return execForm(args) ?? args.split(/\s+/).filter((w) => w !== '');
}

/** ENV's variables (`ENV A=1 B="two"`; the old `ENV A value` form too). */
export function envOf(args: string): Map<string, string> {
  const env = new Map<string, string>();
  if (!/^\w+=/.test(args)) {
    const m = /^(\w+)\s+(.*)$/.exec(args);
    if (m) env.set(m[1]!, m[2]!);
    return env;
  }
  for (const m of args.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    env.set(m[1]!, m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!);
  }
  return env;
}

// --- .dockerignore ---

/** A regular expression for one pattern of Go's filepath.Match with Docker's `**`. */
function globRegex(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      // `**` crosses folders; `**/` also matches no folder at all
      if (pattern[i + 2] === '/') {
        re += '(?:.*/)?';
        i += 2;
      } else {
        re += '.*';
        i += 1;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) throw new Error(`.dockerignore: unclosed [ in ${pattern}`);
      re += '[' + pattern.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\') + ']';
      i = end;
    } else if (c === '\\') {
      re += '\\' + (pattern[++i] ?? '\\');
    } else re += c.replace(/[.+^${}()|\]]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * `excluded(path)` for a .dockerignore, as Docker reads it: patterns in order, `!` re-includes,
 * a pattern that matches a folder covers everything in it, and the last pattern that matches the
 * path (or one of its folders) decides. Paths are relative to the build context, with `/`.
 */
export function dockerignore(text: string): (path: string) => boolean {
  const patterns = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      const p = (negate ? l.slice(1) : l).trim().replace(/^\/+/, '').replace(/^\.\//, '').replace(/\/+$/, '');
      return { negate, re: globRegex(p) };
    });
  return (path) => {
    const parts = path.replace(/^\.\//, '').replace(/\/+$/, '').split('/');
    const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let excluded = false;
    for (const p of patterns) if (prefixes.some((prefix) => p.re.test(prefix))) excluded = !p.negate;
    return excluded;
  };
}

// --- YAML (the subset compose.yaml uses) ---

export type Yaml = string | null | Yaml[] | { [key: string]: Yaml };

interface YamlLine {
  n: number;
  indent: number;
  text: string;
}

/** The line without its comment (a `#` at the start or after a space, outside quotes). */
function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

function splitFlow(inner: string, n: number): string[] {
  const items: string[] = [];
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') throw new Error(`YAML line ${n}: nested flow collections are not supported`);
    else if (c === ',') {
      items.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  if (quote) throw new Error(`YAML line ${n}: unclosed quote`);
  const last = inner.slice(start);
  if (last.trim() !== '' || items.length > 0) items.push(last);
  return items.map((s) => s.trim());
}

function scalar(text: string, n: number): Yaml {
  const t = text.trim();
  if (t.startsWith('"')) {
    if (!/^"(?:[^"\\]|\\.)*"$/.test(t)) throw new Error(`YAML line ${n}: bad double-quoted string: ${t}`);
    return JSON.parse(t) as string;
  }
  if (t.startsWith("'")) {
    if (!/^'(?:[^']|'')*'$/.test(t)) throw new Error(`YAML line ${n}: bad single-quoted string: ${t}`);
    return t.slice(1, -1).replace(/''/g, "'");
  }
  if (t.startsWith('[')) {
    if (!t.endsWith(']')) throw new Error(`YAML line ${n}: a flow sequence must end on its line: ${t}`);
    return splitFlow(t.slice(1, -1), n).map((s) => scalar(s, n));
  }
  if (/^[{&*!|>%@`]/.test(t) || /:\s/.test(t) || t === '---') throw new Error(`YAML line ${n}: not supported by this reader: ${t}`);
  return t;
}

const KEY = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[A-Za-z0-9_.\-/]+):(?:\s+(.*))?$/;

function parseBlock(lines: YamlLine[], i: number, indent: number): [Yaml, number] {
  const first = lines[i]!;
  if (first.text === '-' || first.text.startsWith('- ')) {
    const items: Yaml[] = [];
    while (i < lines.length && lines[i]!.indent === indent && (lines[i]!.text === '-' || lines[i]!.text.startsWith('- '))) {
      const { n, text } = lines[i]!;
      const item = text.slice(1).trim();
      if (item === '' || KEY.test(item)) throw new Error(`YAML line ${n}: only scalar sequence items are supported`);
      items.push(scalar(item, n));
      i++;
    }
    if (i < lines.length && lines[i]!.indent > indent) throw new Error(`YAML line ${lines[i]!.n}: unexpected indentation`);
    return [items, i];
  }
  const map: { [key: string]: Yaml } = {};
  while (i < lines.length && lines[i]!.indent === indent) {
    const { n, text } = lines[i]!;
    const m = KEY.exec(text);
    if (!m) throw new Error(`YAML line ${n}: expected "key:" or "key: value": ${text}`);
    const key = scalar(m[1]!, n) as string;
    if (Object.hasOwn(map, key)) throw new Error(`YAML line ${n}: duplicate key ${key}`);
    i++;
    if (m[2] !== undefined && m[2].trim() !== '') {
      map[key] = scalar(m[2], n);
    } else if (i < lines.length && lines[i]!.indent > indent) {
      [map[key], i] = parseBlock(lines, i, lines[i]!.indent);
    } else {
      map[key] = null;
    }
  }
  if (i < lines.length && lines[i]!.indent > indent) throw new Error(`YAML line ${lines[i]!.n}: unexpected indentation`);
  return [map, i];
}

/**
 * Block mappings, block sequences of scalars, flow sequences of scalars on one line, plain and
 * quoted scalars (all kept as strings), comments. Anything else (anchors, block scalars, flow
 * mappings, mappings inside sequences, several documents) is an error, not a guess.
 */
export function parseYaml(text: string): Yaml {
  const lines: YamlLine[] = [];
  text.split('\n').forEach((raw, idx) => {
    const line = stripComment(raw.replace(/\r$/, '')).trimEnd();
    if (line.trim() === '') return;
    const indent = /^ */.exec(line)![0].length;
    if (line[indent] === '\t') throw new Error(`YAML line ${idx + 1}: a tab in the indentation`);
    lines.push({ n: idx + 1, indent, text: line.slice(indent) });
  });
  if (lines.length === 0) return null;
  const [value, end] = parseBlock(lines, 0, lines[0]!.indent);
  if (end < lines.length) throw new Error(`YAML line ${lines[end]!.n}: unexpected indentation`);
  return value;
}

/** The mapping at `key` of a YAML mapping (an error when it is something else). */
export function mapAt(node: Yaml | undefined, key: string): { [key: string]: Yaml } {
  const v = node && typeof node === 'object' && !Array.isArray(node) ? node[key] : undefined;
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${key} is not a mapping`);
  return v;
}

// --- systemd unit ---

/** Section → key → its values in order (a key may be given more than once). */
export type Unit = Map<string, Map<string, string[]>>;

export function parseUnit(text: string): Unit {
  const unit: Unit = new Map();
  let section: Map<string, string[]> | null = null;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) return;
    if (line.endsWith('\\')) throw new Error(`unit line ${i + 1}: continuation lines are not supported by this reader`);
    const head = /^\[([^\]]+)\]$/.exec(line);
    if (head) {
      section = unit.get(head[1]!) ?? new Map<string, string[]>();
      unit.set(head[1]!, section);
      return;
    }
    const kv = /^([A-Za-z][A-Za-z0-9]*)\s*=\s*(.*)$/.exec(line);
    if (!kv || !section) throw new Error(`unit line ${i + 1}: not a key=value in a section: ${line}`);
    const values = section.get(kv[1]!) ?? [];
    values.push(kv[2]!);
    section.set(kv[1]!, values);
  });
  return unit;
}

/** The last value of a key (the one systemd uses for a single-valued setting). */
export function unitValue(unit: Unit, section: string, key: string): string | undefined {
  return unit.get(section)?.get(key)?.at(-1);
}

// --- the real CLI ---

export interface ServeHelp {
  /** Long option names: `--data-dir`, … */
  options: Set<string>;
  /** Their environment variables: `VTS_DATA_DIR`, … */
  env: Set<string>;
  /** Default text of an option, as the help shows it (`6868`, `"./data"`). */
  defaults: Map<string, string>;
}

let help: ServeHelp | undefined;

/** What `vts serve --help` lists, from the real CLI (run once per test file). */
export function serveHelp(): ServeHelp {
  if (help) return help;
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VTS_')));
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--help'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`vts serve --help exited with ${String(run.status)}: ${run.stderr}`);
  const options = new Set<string>();
  const envNames = new Set<string>();
  const defaults = new Map<string, string>();
  // one entry per option: its first line starts with two spaces and the flags
  const entries = run.stdout.split(/\n(?= {2}-)/);
  for (const entry of entries) {
    const m = /^ {2}(?:-\w, )?(--[a-z][a-z0-9-]*)/.exec(entry);
    if (!m) continue;
    options.add(m[1]!);
    const text = entry.replace(/\s+/g, ' ');
    const e = /env: (VTS_[A-Z0-9_]+)\)/.exec(text);
    if (e) envNames.add(e[1]!);
    const d = /\(default: ("[^"]*"|[^,)]+)/.exec(text);
    if (d) defaults.set(m[1]!, d[1]!);
  }
  if (!options.has('--data-dir') || !envNames.has('VTS_DATA_DIR')) throw new Error(`unexpected vts serve --help:\n${run.stdout}`);
  help = { options, env: envNames, defaults };
  return help;
}
