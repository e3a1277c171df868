/** The rules for a user's notification targets (src/core/push/targets.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maskedUrl, targetSecretProblem, targetUrlProblem } from '../../src/core/push/targets.js';

test('webhook URLs: http(s), any path', () => {
  assert.equal(targetUrlProblem('webhook', 'https://ha.local:8123/api/webhook/abc'), null);
  assert.equal(targetUrlProblem('webhook', 'http://192.168.1.5/hook'), null);
  assert.match(targetUrlProblem('webhook', 'ftp://x/y') ?? '', /https:\/\//);
  assert.match(targetUrlProblem('webhook', 'not a url') ?? '', /not a URL/);
  assert.match(targetUrlProblem('webhook', 'https://x/y#frag') ?? '', /fragment/);
  assert.match(targetUrlProblem('webhook', `https://x/${'a'.repeat(3000)}`) ?? '', /longer/);
});

test('ntfy URLs name one topic', () => {
  assert.equal(targetUrlProblem('ntfy', 'https://ntfy.sh/my-car'), null);
  assert.equal(targetUrlProblem('ntfy', 'https://user:pw@ntfy.example/alerts/'), null);
  assert.match(targetUrlProblem('ntfy', 'https://ntfy.sh/') ?? '', /topic/);
  assert.match(targetUrlProblem('ntfy', 'https://ntfy.sh/a/b') ?? '', /topic/);
});

test('a problem never repeats the URL', () => {
  const problem = targetUrlProblem('webhook', 'gopher://secret-token@host/x') ?? '';
  assert.ok(problem !== '' && !problem.includes('secret-token'));
});

test('secrets: bounded, no control characters', () => {
  assert.equal(targetSecretProblem(''), null);
  assert.equal(targetSecretProblem('s3cret'), null);
  assert.match(targetSecretProblem('a\nb') ?? '', /control/);
  assert.match(targetSecretProblem('x'.repeat(300)) ?? '', /longer/);
});

test('lists show URLs without their credentials', () => {
  assert.equal(maskedUrl('https://ntfy.sh/topic'), 'https://ntfy.sh/topic');
  const masked = maskedUrl('https://alice:pw@ntfy.example/topic');
  assert.ok(!masked.includes('alice') && !masked.includes('pw@'));
  assert.match(masked, /ntfy\.example\/topic/);
});
