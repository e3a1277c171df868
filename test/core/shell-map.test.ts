/**
 * MP commands as v3 console commands (src/core/commands/shell-map.ts, docs/protocol/mqtt-v3.md §11.7): the line
 * and success pattern of every mapped MP code (homelink 0-based → 1-based, charge modes 0/1/3/4,
 * climate 0/1, PINs digits only, AT commands with their commas), null for codes without a console
 * equivalent and for bad parameters; the outcome of the module's console output (its own success
 * texts → 0, `Error:` → 1, `… not available` → 2, anything else → 1, command 7 always 0 with CR LF
 * and CR as LF); the `c` record data for command 7, successes, failures and AT commands.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeText } from '../../src/core/mp/command.js';
import type { MpCommand } from '../../src/core/commands/request.js';
import { mpToShell, responseData, shellOutcome, unmappedOutcome } from '../../src/core/commands/shell-map.js';

const cmd = (code: number, params = ''): MpCommand => ({ code, params });
const shell = (code: number, params = '') => mpToShell(cmd(code, params));

/** The outcome of a mapped command's console output. */
function outcome(code: number, params: string, output: string) {
  const c = cmd(code, params);
  const s = mpToShell(c);
  assert.ok(s, `${code},${params} is mapped`);
  return shellOutcome(c, s, output);
}

const AT_SUCCESS = /^(?![\s\S]*ERROR)[\s\S]*\S/;

test('7: the command line as is, no success pattern; empty → null', () => {
  assert.deepEqual(shell(7, 'stat'), { line: 'stat' });
  assert.deepEqual(shell(7, 'metrics list v.b.soc'), { line: 'metrics list v.b.soc' });
  assert.deepEqual(shell(7, 'config set a b,c'), { line: 'config set a b,c' });
  assert.equal('success' in shell(7, 'stat')!, false);
  assert.equal(shell(7, ''), null);
  assert.equal(shell(7, '   '), null);
});

test('10: charge modes 0/1/3/4; anything else → null', () => {
  const success = /^Charge mode '.*' set/;
  assert.deepEqual(shell(10, '0'), { line: 'charge mode standard', success });
  assert.deepEqual(shell(10, '1'), { line: 'charge mode storage', success });
  assert.deepEqual(shell(10, '3'), { line: 'charge mode range', success });
  assert.deepEqual(shell(10, '4'), { line: 'charge mode performance', success });
  assert.deepEqual(shell(10, ' 3 ,x'), { line: 'charge mode range', success });
  for (const bad of ['', '2', '5', '03', '-1', 'range', 'standard']) assert.equal(shell(10, bad), null, bad);
});

test(
  '10: a mode that names an Object.prototype member → null',
  () => {
    for (const bad of ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__']) assert.equal(shell(10, bad), null, bad);
  },
);

test('11, 12, 25: charge start / stop / cooldown; 18, 19: wakeup', () => {
  assert.deepEqual(shell(11), { line: 'charge start', success: /^Charge has been started/ });
  assert.deepEqual(shell(12), { line: 'charge stop', success: /^Charge has been stopped/ });
  assert.deepEqual(shell(25), { line: 'charge cooldown', success: /^Cooldown has been started/ });
  assert.deepEqual(shell(18), { line: 'wakeup', success: /^Vehicle has been woken/ });
  assert.deepEqual(shell(19), { line: 'wakeup', success: /^Vehicle has been woken/ });
  // parameters are not passed on
  assert.deepEqual(shell(11, 'x,y'), { line: 'charge start', success: /^Charge has been started/ });
});

test('15: charge current <A> with 1..3 digits; else null', () => {
  const success = /^Charge current limit set to/;
  assert.deepEqual(shell(15, '16'), { line: 'charge current 16', success });
  assert.deepEqual(shell(15, '6'), { line: 'charge current 6', success });
  assert.deepEqual(shell(15, ' 32 '), { line: 'charge current 32', success });
  assert.deepEqual(shell(15, '100,1'), { line: 'charge current 100', success });
  for (const bad of ['', '1000', '16A', '-1', '1.5', 'x']) assert.equal(shell(15, bad), null, bad);
});

test('20–23: lock/valet/unlock/unvalet with a PIN of 1..12 digits, else without one', () => {
  assert.deepEqual(shell(20, '1234'), { line: 'lock 1234', success: /^Vehicle locked/ });
  assert.deepEqual(shell(21, '1234'), { line: 'valet 1234', success: /^Vehicle valet mode activated/ });
  assert.deepEqual(shell(22, '1234'), { line: 'unlock 1234', success: /^Vehicle unlocked/ });
  assert.deepEqual(shell(23, '1234'), { line: 'unvalet 1234', success: /^Vehicle valet mode deactivated/ });
  assert.deepEqual(shell(22, ' 0042 '), { line: 'unlock 0042', success: /^Vehicle unlocked/ });
  assert.deepEqual(shell(20, '1234,extra'), { line: 'lock 1234', success: /^Vehicle locked/ });
  assert.deepEqual(shell(20, '123456789012'), { line: 'lock 123456789012', success: /^Vehicle locked/ });
  // no PIN, or one that is not digits only: dropped (never passed to the console)
  for (const pin of ['', 'abcd', '12a4', '1234567890123', '12 34', '1234; reboot', '"1234"', '-1']) {
    assert.deepEqual(shell(20, pin), { line: 'lock', success: /^Vehicle locked/ }, pin);
    assert.deepEqual(shell(23, pin), { line: 'unvalet', success: /^Vehicle valet mode deactivated/ }, pin);
  }
});

test('24: homelink, MP 0-based → shell 1-based', () => {
  const success = /^Homelink #\d+ activated/;
  assert.deepEqual(shell(24, '0'), { line: 'homelink 1', success });
  assert.deepEqual(shell(24, '1'), { line: 'homelink 2', success });
  assert.deepEqual(shell(24, '2'), { line: 'homelink 3', success });
  assert.deepEqual(shell(24, '09'), { line: 'homelink 10', success });
  assert.deepEqual(shell(24, ' 1 '), { line: 'homelink 2', success });
  for (const bad of ['', 'x', '-1', '100', '1.5']) assert.equal(shell(24, bad), null, bad);
});

test('26: climatecontrol off/on for 0/1; else null', () => {
  assert.deepEqual(shell(26, '0'), { line: 'climatecontrol off', success: /^Climate Control/ });
  assert.deepEqual(shell(26, '1'), { line: 'climatecontrol on', success: /^Climate Control/ });
  for (const bad of ['', '2', 'on', '01', '-1']) assert.equal(shell(26, bad), null, bad);
});

test('49: cellular cmd <AT command> with its commas; empty → null', () => {
  assert.deepEqual(shell(49, 'AT+CSQ'), { line: 'cellular cmd AT+CSQ', success: AT_SUCCESS });
  assert.deepEqual(shell(49, 'AT+COPS=0,0'), { line: 'cellular cmd AT+COPS=0,0', success: AT_SUCCESS });
  assert.equal(shell(49, ''), null);
  assert.equal(shell(49, '  '), null);
});

test('unmapped MP codes → null; their outcome is 3 (unimplemented)', () => {
  for (const code of [0, 1, 2, 3, 4, 5, 6, 8, 9, 13, 14, 16, 17, 27, 30, 31, 32, 40, 41, 42, 48, 50, 9999]) {
    assert.equal(shell(code, '1'), null, String(code));
  }
  assert.deepEqual(unmappedOutcome(), { result: 3, output: '' });
});

test('shellOutcome: the module success texts → 0 (trimmed, CR LF → LF)', () => {
  const ok: [number, string, string][] = [
    [10, '0', "Charge mode 'standard' set\n"],
    [10, '4', "Charge mode 'performance' set\n"],
    [11, '', 'Charge has been started\n'],
    [12, '', 'Charge has been stopped\n'],
    [15, '16', 'Charge current limit set to 16A\n'],
    [18, '', 'Vehicle has been woken\n'],
    [19, '', 'Vehicle has been woken\n'],
    [20, '1234', 'Vehicle locked\n'],
    [21, '1234', 'Vehicle valet mode activated\n'],
    [22, '1234', 'Vehicle unlocked\n'],
    [23, '1234', 'Vehicle valet mode deactivated\n'],
    [24, '0', 'Homelink #1 activated\n'],
    [25, '', 'Cooldown has been started\n'],
  ];
  for (const [code, params, output] of ok) {
    assert.deepEqual(outcome(code, params, output), { result: 0, output: output.trim() }, output);
  }
  // the module writes "Climate Control " and "on" with separate puts
  assert.deepEqual(outcome(26, '1', 'Climate Control \non\n'), { result: 0, output: 'Climate Control \non' });
  assert.deepEqual(outcome(26, '0', 'Climate Control \r\noff\r\n'), { result: 0, output: 'Climate Control \noff' });
  assert.deepEqual(outcome(20, '1234', '\r\n  Vehicle locked\r\n'), { result: 0, output: 'Vehicle locked' });
});

test('shellOutcome: Error: → 1, … not available → 2 (also with Error:), anything else → 1', () => {
  assert.deepEqual(outcome(20, '1234', 'Error: vehicle could not be locked\n'), {
    result: 1,
    output: 'Error: vehicle could not be locked',
  });
  assert.deepEqual(outcome(20, '1234', 'Error: No vehicle module selected\n'), { result: 1, output: 'Error: No vehicle module selected' });
  assert.deepEqual(outcome(24, '5', 'Error: Homelink button should be in range 1..3\n'), {
    result: 1,
    output: 'Error: Homelink button should be in range 1..3',
  });
  assert.deepEqual(outcome(20, '1234', 'Error: Vehicle lock functionality not available\n'), {
    result: 2,
    output: 'Error: Vehicle lock functionality not available',
  });
  assert.deepEqual(outcome(26, '1', 'Error: Climate Control functionality not available\r\n'), {
    result: 2,
    output: 'Error: Climate Control functionality not available',
  });
  assert.deepEqual(outcome(11, '', 'Charging is Not Available on this model'), {
    result: 2,
    output: 'Charging is Not Available on this model',
  });
  // not the command's success text
  assert.deepEqual(outcome(20, '1234', 'Vehicle unlocked\n'), { result: 1, output: 'Vehicle unlocked' });
  assert.deepEqual(outcome(20, '', 'Unrecognised command\n'), { result: 1, output: 'Unrecognised command' });
  assert.deepEqual(outcome(11, '', ''), { result: 1, output: '' });
  // Error: must start the output (after trimming)
  assert.deepEqual(outcome(12, '', '  Error: Could not stop charge\r\n'), { result: 1, output: 'Error: Could not stop charge' });
  assert.deepEqual(outcome(12, '', 'Charge has been stopped\nError: later'), { result: 0, output: 'Charge has been stopped\nError: later' });
  // CR LF and lone CR as LF inside the text
  assert.deepEqual(outcome(22, '1', 'Error: a\rb\r\nc\r\n'), { result: 1, output: 'Error: a\nb\nc' });
});

test('shellOutcome: 49 succeeds on non-empty output without ERROR', () => {
  assert.deepEqual(outcome(49, 'AT+CSQ', '+CSQ: 20,99\r\n\r\nOK\r\n'), { result: 0, output: '+CSQ: 20,99\n\nOK' });
  assert.deepEqual(outcome(49, 'AT', 'OK\n'), { result: 0, output: 'OK' });
  assert.deepEqual(outcome(49, 'AT+X', '\r\nERROR\r\n'), { result: 1, output: 'ERROR' });
  assert.deepEqual(outcome(49, 'AT+CPIN?', '+CME ERROR: 10\r\n'), { result: 1, output: '+CME ERROR: 10' });
  assert.deepEqual(outcome(49, 'AT', ''), { result: 1, output: '' });
  assert.deepEqual(outcome(49, 'AT', ' \r\n '), { result: 1, output: '' });
});

test('shellOutcome: command 7 is always 0 with the whole output, CR LF and CR as LF', () => {
  assert.deepEqual(outcome(7, 'stat', 'line1\r\nline2\rline3\n'), { result: 0, output: 'line1\nline2\nline3\n' });
  assert.deepEqual(outcome(7, 'x', 'Error: something failed\n'), { result: 0, output: 'Error: something failed\n' });
  assert.deepEqual(outcome(7, 'lock', 'Error: Vehicle lock functionality not available\r\n'), {
    result: 0,
    output: 'Error: Vehicle lock functionality not available\n',
  });
  assert.deepEqual(outcome(7, 'x', 'Unrecognised command\n'), { result: 0, output: 'Unrecognised command\n' });
  assert.deepEqual(outcome(7, 'x', '  indented\n\n'), { result: 0, output: '  indented\n\n' });
  assert.deepEqual(outcome(7, 'x', ''), { result: 0, output: '' });
});

test('responseData 7: 7,<rc>,<text encoded by the passed encoder>, also when empty', () => {
  const mark = (t: string): string => `<${t}>`;
  assert.equal(responseData(cmd(7, 'stat'), { result: 0, output: 'a,b\nc\n' }, encodeText), '7,0,a;b\rc\r');
  assert.equal(responseData(cmd(7, 'stat'), { result: 0, output: 'a,b\nc\n' }, mark), '7,0,<a,b\nc\n>');
  assert.equal(responseData(cmd(7, 'stat'), { result: 0, output: '' }, encodeText), '7,0,');
  assert.equal(responseData(cmd(7, 'stat'), { result: 0, output: '' }, mark), '7,0,<>');
  // through shellOutcome: the module's CR LF output as the v2 module's c7 record
  const c = cmd(7, 'stat');
  assert.equal(responseData(c, shellOutcome(c, mpToShell(c)!, 'SOC: 80%\r\nRange: 300km, ideal\r\n'), encodeText), '7,0,SOC: 80%\rRange: 300km; ideal\r');
});

test('responseData: success without text, failures with their (encoded) text', () => {
  const mark = (t: string): string => `<${t}>`;
  assert.equal(responseData(cmd(20, '1234'), { result: 0, output: 'Vehicle locked' }, encodeText), '20,0');
  assert.equal(responseData(cmd(11), { result: 0, output: '' }, mark), '11,0');
  assert.equal(responseData(cmd(24, '0'), { result: 0, output: 'Homelink #1 activated' }, mark), '24,0');
  assert.equal(
    responseData(cmd(20, '1234'), { result: 1, output: 'Error: vehicle could not be locked' }, encodeText),
    '20,1,Error: vehicle could not be locked',
  );
  assert.equal(
    responseData(cmd(26, '1'), { result: 2, output: 'Error: Climate, functionality not available\nmore' }, encodeText),
    '26,2,Error: Climate; functionality not available\rmore',
  );
  assert.equal(responseData(cmd(20, '1234'), { result: 1, output: 'Error: x' }, mark), '20,1,<Error: x>');
  assert.equal(responseData(cmd(11), { result: 1, output: '' }, mark), '11,1');
  assert.equal(responseData(cmd(5), unmappedOutcome(), mark), '5,3');
});

test('responseData 49: the modem output also on success', () => {
  const mark = (t: string): string => `<${t}>`;
  assert.equal(responseData(cmd(49, 'AT+CSQ'), { result: 0, output: '+CSQ: 20,99\n\nOK' }, encodeText), '49,0,+CSQ: 20;99\r\rOK');
  assert.equal(responseData(cmd(49, 'AT'), { result: 0, output: 'OK' }, mark), '49,0,<OK>');
  assert.equal(responseData(cmd(49, 'AT+X'), { result: 1, output: 'ERROR' }, encodeText), '49,1,ERROR');
  assert.equal(responseData(cmd(49, 'AT'), { result: 1, output: '' }, mark), '49,1');
});
