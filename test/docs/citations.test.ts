/**
 * Every citation of the protocol docs resolves: `docs/protocol/<file>.md` with optional sections
 * (`§8.4`, ranges `§8–§16`, lists `§8, §13.3`, also across a comment's line break) in src/, test/,
 * web/, bench/, scripts/ and docs/ names a file of docs/protocol/ and, for each section, a heading
 * of that file (`## §8 …`, `### §8.4 …`). Inside docs/protocol/ the files cite each other by their
 * short names (`mp.md` §9.1) and their own sections by a bare `§N`; those must resolve too. And no
 * citation of the old notes (`mp-protocol.md`, `command-execution.md`, …) is left outside
 * docs/protocol/: scripts/cite-protocol.mjs rewrites them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const PROTOCOL = join(ROOT, 'docs', 'protocol');
const DIRS = ['src', 'test', 'web', 'bench', 'scripts', 'docs'];
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git']);
/** These two spell the old names on purpose. */
const SELF = new Set(['test/docs/citations.test.ts', 'scripts/cite-protocol.mjs']);

const OLD_NAMES = ['mp-protocol', 'mp-messages', 'http-api-v2', 'mqtt-v3', 'command-execution', 'module-console', 'reference-transcripts', 'product-spec'];
const OLD = new RegExp(`(?<![\\w/.-])(?:${OLD_NAMES.join('|')})\\.md|spec/(?:${OLD_NAMES.join('|')})\\.md|product spec §`, 'g');

// A section id (`8`, `8.4`, `8a`), ranges and lists of them; a comment's line break may come
// between the file and its first section or between list items.
const BREAK = String.raw`[ \t]*(?:\r?\n[ \t]*(?:\*|//|#|--)?[ \t]*)?`;
const ID = String.raw`\d+[a-z]?(?:\.\d+)*`;
const ITEM = String.raw`§${ID}(?:[ \t]*[–-][ \t]*§?${ID})?`;
const LIST = `${ITEM}(?:[ \\t]*,${BREAK}${ITEM})*`;
const CITED = new RegExp(String.raw`docs/protocol/([\w.-]+\.md)(?:${BREAK}(${LIST}))?`, 'g');
const SIBLING = new RegExp(String.raw`\x60?\b([\w-]+\.md)\x60?(?:${BREAK}(${LIST}))?`, 'g');
const BARE = new RegExp(LIST, 'g');

function* walk(dir: string): Generator<string> {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) {
      if (!SKIP_DIRS.has(name)) yield* walk(path);
    } else if (st.isFile() && st.size < 4_000_000) {
      yield path;
    }
  }
}

const rel = (path: string): string => relative(ROOT, path).split('\\').join('/');
const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/** The section ids of each file of docs/protocol/, from its `§` headings. */
const headings = new Map<string, Set<string>>();
for (const name of existsSync(PROTOCOL) ? readdirSync(PROTOCOL) : []) {
  if (!name.endsWith('.md')) continue;
  const ids = new Set<string>();
  for (const m of readFileSync(join(PROTOCOL, name), 'utf8').matchAll(/^#{1,6}[ \t]+§([\w.]+)/gm)) ids.add(m[1]!.replace(/\.$/, ''));
  headings.set(name, ids);
}

/** The ids a list names: both ends of a range, each item of a list. */
function ids(list: string): string[] {
  return [...list.matchAll(new RegExp(`§?(${ID})`, 'g'))].map((m) => m[1]!);
}

/** Problems with one citation of `file` (a name in docs/protocol/) and its section list. */
function check(where: string, file: string, list: string | undefined): string[] {
  const known = headings.get(file);
  if (known === undefined) return [`${where}: docs/protocol/${file} does not exist`];
  return ids(list ?? '').filter((id) => !known.has(id)).map((id) => `${where}: docs/protocol/${file} has no heading §${id}`);
}

const texts = new Map<string, string>();
for (const dir of DIRS) {
  for (const path of walk(join(ROOT, dir))) {
    const r = rel(path);
    if (SELF.has(r)) continue;
    const buf = readFileSync(path);
    if (!buf.includes(0)) texts.set(r, buf.toString('utf8'));
  }
}

test('docs/protocol/ has its index and one file per protocol, each with § headings', () => {
  for (const name of ['README.md', 'mp.md', 'messages.md', 'http-api-v2.md', 'mqtt-v3.md', 'commands.md', 'module-console.md']) {
    assert.ok(headings.has(name), `docs/protocol/${name} exists`);
  }
  for (const [name, ids] of headings) if (name !== 'README.md') assert.ok(ids.size > 0, `${name} has § headings`);
});

test('every citation of docs/protocol/ names an existing file and section', () => {
  const problems: string[] = [];
  let count = 0;
  for (const [file, text] of texts) {
    if (file.startsWith('docs/protocol/')) continue;
    for (const m of text.matchAll(CITED)) {
      count++;
      problems.push(...check(`${file}:${lineOf(text, m.index)}`, m[1]!, m[2]));
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(count > 0, 'the code cites the protocol docs');
});

test('inside docs/protocol/, citations of a sibling and of the own sections resolve', () => {
  const problems: string[] = [];
  for (const [file, text] of texts) {
    if (!file.startsWith('docs/protocol/')) continue;
    const own = file.slice('docs/protocol/'.length);
    const covered: Array<[number, number]> = [];
    for (const m of text.matchAll(SIBLING)) {
      if (!headings.has(m[1]!)) continue; // docs/compatibility.md and the like: not a protocol doc
      covered.push([m.index, m.index + m[0].length]);
      problems.push(...check(`${file}:${lineOf(text, m.index)}`, m[1]!, m[2]));
    }
    for (const m of text.matchAll(BARE)) {
      if (covered.some(([a, b]) => m.index >= a && m.index < b)) continue;
      if (/^#{1,6}[ \t]+$/.test(text.slice(text.lastIndexOf('\n', m.index) + 1, m.index))) continue; // a heading itself
      problems.push(...check(`${file}:${lineOf(text, m.index)}`, own, m[0]));
    }
  }
  assert.deepEqual(problems, []);
});

test('no citation of the old protocol notes is left (node scripts/cite-protocol.mjs rewrites them)', () => {
  const problems: string[] = [];
  for (const [file, text] of texts) {
    if (file.startsWith('docs/protocol/')) continue;
    for (const m of text.matchAll(OLD)) problems.push(`${file}:${lineOf(text, m.index)}: ${m[0]}`);
  }
  assert.deepEqual(problems, []);
});
