/** The one rule for new account passwords (src/core/auth/password-rule.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordProblem } from '../../src/core/auth/password-rule.js';

test('8 to 1024 characters without a line break; the message never holds the password', () => {
  assert.equal(MIN_PASSWORD_LENGTH, 8);
  assert.equal(passwordProblem(''), 'the password is empty');
  assert.equal(passwordProblem('1234567'), 'the password must have at least 8 characters');
  assert.equal(passwordProblem('12345678'), null);
  assert.equal(passwordProblem('pass word with spaces'), null);
  assert.equal(passwordProblem('x'.repeat(MAX_PASSWORD_LENGTH)), null);
  assert.equal(passwordProblem('x'.repeat(MAX_PASSWORD_LENGTH + 1)), 'the password is longer than 1024 characters');
  assert.equal(passwordProblem('line one\nline two'), 'the password contains a line break');
  assert.equal(passwordProblem('secretsecret\r'), 'the password contains a line break');
  for (const pw of ['seven77', 'secret\nsecret']) assert.ok(!passwordProblem(pw)!.includes(pw));
});

test("the dashboard's form takes its minimum from the rule, not from a number of its own", () => {
  const page = readFileSync(new URL('../../web/src/pages/account.ts', import.meta.url), 'utf8');
  assert.match(page, /import \{ MIN_PASSWORD_LENGTH as MIN_PASSWORD \} from '\.\.\/\.\.\/\.\.\/src\/core\/auth\/password-rule';/);
  assert.doesNotMatch(page, /MIN_PASSWORD\s*=\s*\d/);
});
