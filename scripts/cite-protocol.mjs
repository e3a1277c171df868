#!/usr/bin/env node
/**
 * Rewrites citations of the old protocol notes (files a clone of vts does not have) into
 * citations of docs/protocol/, which keeps their section numbers: `mp-protocol.md §8.4` becomes
 * `docs/protocol/mp.md §8.4`, and ranges and lists (`§8–§16`, `§8, §13.3`) follow unchanged, as do
 * bare file mentions. The product specification's few citations map to the section that states
 * the same rule. Idempotent: a citation already under docs/protocol/ is left alone.
 *
 * Usage: node scripts/cite-protocol.mjs [--check] [dir…]   (default dirs: src test web bench scripts docs)
 * With --check nothing is written; the exit code is 1 when a file would change.
 * test/docs/citations.test.ts checks that every citation left resolves.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Old note name → the file under docs/protocol/ that restates it. */
export const NOTES = {
  'mp-protocol': 'mp',
  'mp-messages': 'messages',
  'http-api-v2': 'http-api-v2',
  'mqtt-v3': 'mqtt-v3',
  'command-execution': 'commands',
  'module-console': 'module-console',
  'reference-transcripts': 'transcripts',
};

/** The product specification's sections that code cites, and where docs/protocol/ states them. */
const PRODUCT_SPEC = {
  '3': 'http-api-v2.md §4.5',
  '4.1': 'http-api-v2.md §4',
  '4.2': 'http-api-v2.md §4.3',
  '4.3': 'commands.md §1',
  '5': 'http-api-v2.md §3',
};

const SKIP_DIRS = new Set(['node_modules', 'dist', '.git']);
/** docs/protocol/ cites its own files by their short names. */
const SKIP_PATHS = new Set(['docs/protocol']);
const SELF = new Set(['scripts/cite-protocol.mjs', 'test/docs/citations.test.ts']);
const names = Object.keys(NOTES).join('|');

/** Rewrites the text of one file; returns it unchanged when it cites nothing old. */
export function rewrite(text) {
  let out = text;
  // A path to the notes folder (`../shared/spec/mp-protocol.md`) goes with the name.
  out = out.replace(new RegExp(`(?:\\.\\./)*(?:shared/)?spec/(${names})\\.md`, 'g'), (_, n) => `docs/protocol/${NOTES[n]}.md`);
  // A bare name not already under a folder (so `docs/protocol/http-api-v2.md` stays as it is).
  out = out.replace(new RegExp(`(?<![\\w/.-])(${names})\\.md`, 'g'), (_, n) => `docs/protocol/${NOTES[n]}.md`);
  // The product specification: `product-spec.md §4.3 "Module SSH server"`, `product spec §3`.
  out = out.replace(/product-spec\.md(?: §([\d.]+)(?: "[^"\n]*")?)?|product spec §([\d.]+)/g, (whole, a, b) => {
    const sec = a ?? b;
    const to = sec === undefined ? 'http-api-v2.md' : PRODUCT_SPEC[sec];
    return to === undefined ? whole : `docs/protocol/${to}`;
  });
  // A citation now written twice in a row (`X §4.5, X §4.5`) is written once.
  out = out.replace(/(docs\/protocol\/[\w-]+\.md §[\d.]+)[,;] \1(?![\d.])/g, '$1');
  // Two citations of one file in a row become one list (`X §4, X §1` → `X §4, §1`).
  const sections = String.raw`§[\w.]+(?:[–-]§?[\w.]+)?`;
  const twice = new RegExp(String.raw`(docs/protocol/([\w-]+\.md) ${sections}(?:, ${sections})*), docs/protocol/\2 (?=§)`, 'g');
  for (let prev = ''; prev !== out; ) {
    prev = out;
    out = out.replace(twice, '$1, ');
  }
  return out;
}

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) {
      if (!SKIP_DIRS.has(name) && !SKIP_PATHS.has(relative(root, path).split('\\').join('/'))) yield* files(path);
    } else if (st.isFile() && st.size < 4_000_000) {
      yield path;
    }
  }
}

function main(argv) {
  const check = argv.includes('--check');
  const dirs = argv.filter((a) => a !== '--check');
  const targets = (dirs.length > 0 ? dirs : ['src', 'test', 'web', 'bench', 'scripts', 'docs']).map((d) => resolve(root, d));
  let changed = 0;
  for (const dir of targets) {
    for (const path of files(dir)) {
      const rel = relative(root, path).split('\\').join('/');
      if (SELF.has(rel)) continue;
      const buf = readFileSync(path);
      if (buf.includes(0)) continue; // binary
      const text = buf.toString('utf8');
      const next = rewrite(text);
      if (next === text) continue;
      changed++;
      console.log(`${check ? 'would rewrite' : 'rewrote'} ${rel}`);
      if (!check) writeFileSync(path, next);
    }
  }
  console.log(`${changed} file(s) ${check ? 'to rewrite' : 'rewritten'}`);
  if (check && changed > 0) process.exitCode = 1;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2));
}
