/** Group messages (src/core/mp/group.ts, docs/protocol/mp.md §14). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupMessageData, parseGroupSubscription, parseGroupUpdate } from '../../src/core/mp/group.js';

test('car update g<group>,<data>: group upper-cased, data kept (transcripts §8 part 1)', () => {
  assert.deepEqual(parseGroupUpdate('group1,group message'), { group: 'GROUP1', groupData: 'group message' });
  assert.deepEqual(parseGroupUpdate('g,80,0,90,12,1,0,51.5,-0.1'), { group: 'G', groupData: '80,0,90,12,1,0,51.5,-0.1' });
  assert.deepEqual(parseGroupUpdate('grp,'), { group: 'GRP', groupData: '' });
});

test('car update without a group or without a comma is null', () => {
  assert.equal(parseGroupUpdate(''), null);
  assert.equal(parseGroupUpdate('group1'), null);
  assert.equal(parseGroupUpdate(',data'), null);
});

test('app subscription G<group>[,…]: the rest is ignored, group upper-cased', () => {
  assert.equal(parseGroupSubscription('group1'), 'GROUP1');
  assert.equal(parseGroupSubscription('group1,ignored,stuff'), 'GROUP1');
  assert.equal(parseGroupSubscription(''), null);
  assert.equal(parseGroupSubscription(',x'), null);
});

test('server → app g<vehicleid>,<GROUP>,<data>', () => {
  assert.equal(groupMessageData('TESTCAR', 'GROUP1', 'group message'), 'TESTCAR,GROUP1,group message');
});
