/**
 * LICENSE is the text of the license package.json names, and CHANGELOG.md (Keep a Changelog) has
 * an Unreleased section and a section for package.json's version.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './parsers.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license: string; version: string };

/** What each license's text must hold: its first line, then its key sentences. */
const LICENSE_TEXTS: Record<string, string[]> = {
  MIT: [
    'MIT License',
    'Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files (the "Software"), to deal in the Software without restriction',
    'The above copyright notice and this permission notice shall be included in all copies or substantial portions of the Software.',
    'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND',
  ],
};

test("LICENSE is the text of package.json's license", () => {
  assert.ok(existsSync(join(ROOT, 'LICENSE')), 'LICENSE exists');
  const text = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
  const required = LICENSE_TEXTS[pkg.license];
  assert.ok(required, `this test knows the text of ${pkg.license} (add it to LICENSE_TEXTS)`);
  assert.equal(text.split('\n')[0]!.trim(), required[0], 'its first line names the license');
  const flat = text.replace(/\s+/g, ' ');
  for (const sentence of required.slice(1)) assert.ok(flat.includes(sentence), `LICENSE holds: ${sentence}`);
  assert.match(text, /^Copyright \(c\) \d{4} \S/m, 'a copyright line with a year and a holder');
});

test("CHANGELOG.md has an Unreleased section and one for package.json's version", () => {
  const text = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
  assert.match(text, /^# Changelog$/m);
  const sections = [...text.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map((m) => ({ version: m[1]!, date: m[2] }));
  assert.equal(sections[0]?.version, 'Unreleased', 'the first section is [Unreleased]');
  const release = sections.find((s) => s.version === pkg.version);
  assert.ok(release, `a section [${pkg.version}]`);
  assert.ok(release.date, `[${pkg.version}] has its date (YYYY-MM-DD)`);
  for (const s of sections.slice(1)) assert.match(s.version, /^\d+\.\d+\.\d+$/, `${s.version} is a version`);
  // every section says something, under Keep a Changelog's headings
  const bodies = text.split(/^## /m).slice(1);
  for (const body of bodies) {
    assert.match(body, /^### (Added|Changed|Deprecated|Removed|Fixed|Security)$/m, `section ${body.split('\n')[0]} has a change heading`);
    assert.match(body, /^- \S/m, `section ${body.split('\n')[0]} lists changes`);
  }
});
