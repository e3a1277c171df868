/** Commands and responses (src/core/mp/command.ts, docs/protocol/mp.md §11, docs/protocol/messages.md §5). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SERVER_FUNCTIONS,
  commandFunction,
  commandParams,
  completesCommand,
  encodeText,
  failureResponse,
} from '../../src/core/mp/command.js';

test('multi-line function 1: the head stays until now = max − 1 (§11.2, transcripts §8 part 2)', () => {
  assert.equal(completesCommand('1,0,0,3,feature a'), false);
  assert.equal(completesCommand('1,0,1,3,feature b'), false);
  assert.equal(completesCommand('1,0,2,3,feature c'), true);
});

test('multi-line function 3 (parameter list) follows the same rule', () => {
  assert.equal(completesCommand('3,0,0,32,'), false);
  assert.equal(completesCommand('3,0,30,32,value,with,commas'), false);
  assert.equal(completesCommand('3,0,31,32,'), true);
});

test('a single-line listing (count 1) completes at once', () => {
  assert.equal(completesCommand('1,0,0,1,only'), true);
});

test('an error result for function 1 or 3 pops the queue (deliberate fix of REF quirk §11.2 / §19 #11)', () => {
  assert.equal(completesCommand('1,1,No active vehicle'), true);
  assert.equal(completesCommand('1,1,0,3,x'), true);
  assert.equal(completesCommand('3,2'), true);
  assert.equal(completesCommand('3,1'), true);
});

test('other functions always pop, whatever their fields look like', () => {
  assert.equal(completesCommand('5,0,ok'), true);
  assert.equal(completesCommand('7,0,line\rline'), true);
  assert.equal(completesCommand('41,0,0,3,x'), true);
  assert.equal(completesCommand('10,0'), true);
  assert.equal(completesCommand('11'), true);
  assert.equal(completesCommand(''), true);
});

test('malformed counters in a function-1 line pop rather than block the queue', () => {
  assert.equal(completesCommand('1,0,x,3,y'), true);
  assert.equal(completesCommand('1,0,0,x,y'), true);
});

test(
  'a function-1 line without a value field (`1,0,0,3`) keeps the head, as REF does',
  () => {
    assert.equal(completesCommand('1,0,0,3'), false);
  },
);

test('commandFunction: the decimal function number of a C request', () => {
  assert.equal(commandFunction('31'), 31);
  assert.equal(commandFunction('31,2026-01-01'), 31);
  assert.equal(commandFunction('32,S'), 32);
  assert.equal(commandFunction('7,stat,with,commas'), 7);
  assert.equal(commandFunction('0'), 0);
  assert.equal(commandFunction('204,1'), 204);
  assert.equal(commandFunction('007'), 7);
});

test('commandFunction: null when there is no number', () => {
  for (const d of ['', ',1', 'abc', '31a', ' 31', '-1', '1.5', '1234567', 'MSgfZR']) {
    assert.equal(commandFunction(d), null, JSON.stringify(d));
  }
});

test('commandParams: everything after the first comma', () => {
  assert.equal(commandParams('31'), '');
  assert.equal(commandParams('31,'), '');
  assert.equal(commandParams('32,S,2026-11-22 00:00:00'), 'S,2026-11-22 00:00:00');
  assert.equal(commandParams('7,server v2 status'), 'server v2 status');
});

test('SERVER_FUNCTIONS are 30, 31 and 32 (§11.4)', () => {
  assert.deepEqual([...SERVER_FUNCTIONS].sort((a, b) => a - b), [30, 31, 32]);
  assert.equal(SERVER_FUNCTIONS.has(1), false);
});

test('failureResponse: <fn>,1,<encoded text>', () => {
  assert.equal(failureResponse(1, 'Vehicle not connected'), '1,1,Vehicle not connected');
  assert.equal(failureResponse(7, 'a, b\nc'), '7,1,a; b\rc');
});

test("encodeText is FW3's mp_encode: CR LF → CR, LF → CR, ',' → ';' (docs/protocol/messages.md §1)", () => {
  assert.equal(encodeText('a\r\nb\nc\rd'), 'a\rb\rc\rd');
  assert.equal(encodeText('x,y,,z'), 'x;y;;z');
  assert.equal(encodeText('\n\n'), '\r\r');
  assert.equal(encodeText('\r\r\n'), '\r\r');
  assert.equal(encodeText(''), '');
});
