/**
 * Remote commands in the core (src/core/commands/): the extended syntax of the custom API
 * (docs/protocol/commands.md §8.2), the kinds shell/js/mp, the outcome of `c` records, and the masking
 * of secrets for the audit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isVtsError } from '../../src/errors.js';
import { redactMp } from '../../src/core/commands/redact.js';
import { mpCommandData, parseExtended, toMpCommand } from '../../src/core/commands/request.js';
import { outcomeOf, parseResponse } from '../../src/core/commands/result.js';

test('extended syntax: #code,params/records, *ussd#, @modem, else shell (MP 7)', () => {
  assert.deepEqual(parseExtended('#3/32'), { code: 3, params: '', records: 32 });
  assert.deepEqual(parseExtended('#20,1234'), { code: 20, params: '1234' });
  assert.deepEqual(parseExtended('#16,0,32'), { code: 16, params: '0,32' });
  assert.deepEqual(parseExtended('*100#'), { code: 41, params: '*100#' });
  assert.deepEqual(parseExtended('@AT+CSQ'), { code: 49, params: 'AT+CSQ' });
  assert.deepEqual(parseExtended('stat'), { code: 7, params: 'stat' });
  assert.deepEqual(parseExtended('metrics list v.b.soc'), { code: 7, params: 'metrics list v.b.soc' });
  assert.deepEqual(parseExtended('#5/0'), { code: 5, params: '', records: 0 });
  for (const bad of ['#', '#x', '#1/99999', '#12a']) {
    assert.throws(() => parseExtended(bad), (e: unknown) => isVtsError(e, 'VTS_ERR_COMMAND_SYNTAX'), bad);
  }
  assert.equal(mpCommandData(parseExtended('#20,1234')), '20,1234');
  assert.equal(mpCommandData(parseExtended('#11')), '11');
});

test('kinds: shell is MP 7, js is script eval (quoted as in script-eval.test.ts), mp takes the code with or without #', () => {
  assert.deepEqual(toMpCommand('shell', 'echo a,b'), { code: 7, params: 'echo a,b' });
  assert.deepEqual(toMpCommand('js', 'print(1)'), { code: 7, params: 'script eval "print(1)"' });
  assert.deepEqual(toMpCommand('mp', '11'), { code: 11, params: '' });
  assert.deepEqual(toMpCommand('mp', '#24,1'), { code: 24, params: '1' });
  for (const [kind, text] of [['shell', ''], ['shell', '  '], ['shell', 'a\nb'], ['shell', 'x'.repeat(2001)]] as const) {
    assert.throws(() => toMpCommand(kind, text), (e: unknown) => isVtsError(e, 'VTS_ERR_COMMAND_SYNTAX'));
  }
});

test('outcome: command 7 output with LF for the module CR; other records one per line', () => {
  assert.deepEqual(parseResponse('7,0,a\rb'), { code: 7, result: 0, data: 'a\rb' });
  assert.deepEqual(parseResponse('11,1'), { code: 11, result: 1, data: '' });
  assert.equal(parseResponse('garbage'), null);
  assert.deepEqual(outcomeOf(['7,0,Not charging\rSOC: 50%\r']), { result: 0, output: 'Not charging\nSOC: 50%\n' });
  assert.deepEqual(outcomeOf(['20,0']), { result: 0, output: '' });
  assert.deepEqual(outcomeOf(['40,2']), { result: 2, output: '' });
  assert.deepEqual(outcomeOf(['3,0,0,2,a', '3,0,1,2,b']), { result: 0, output: '0,2,a\n1,2,b\n' });
});

test('secrets are masked for the audit: PINs, config passwords, MP 4 password slots', () => {
  assert.equal(redactMp(toMpCommand('shell', 'lock 1234')), '7,lock ***');
  assert.equal(redactMp(toMpCommand('shell', 'unvalet 99')), '7,unvalet ***');
  assert.equal(redactMp(toMpCommand('shell', 'config set password module s3cret')), '7,config set password module ***');
  assert.equal(redactMp(toMpCommand('shell', 'stat')), '7,stat');
  assert.equal(redactMp(toMpCommand('mp', '#22,4711')), '22,***');
  assert.equal(redactMp(toMpCommand('mp', '#4,9,newpass')), '4,9,***');
  assert.equal(redactMp(toMpCommand('mp', '#4,2,K')), '4,2,K');
});
