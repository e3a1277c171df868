/** Alert rule bodies (src/core/alerts/rules.ts): each kind's settings, defaults, and the field a bad one names. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkRule, ruleSignature } from '../../../src/core/alerts/rules.js';

const places = [3, 7];

test('valid bodies: settings with their defaults, unused keys ignored', () => {
  assert.deepEqual(checkRule({ kind: 'soc-reached', threshold: 80 }, places), { ok: true, rule: { kind: 'soc-reached', threshold: 80 } });
  assert.deepEqual(checkRule({ kind: 'soc-below', threshold: 0 }, places), { ok: true, rule: { kind: 'soc-below', threshold: 0 } });
  assert.deepEqual(checkRule({ kind: 'charge-stopped' }, places), { ok: true, rule: { kind: 'charge-stopped', after: 120 } });
  assert.deepEqual(checkRule({ kind: 'offline' }, places), { ok: true, rule: { kind: 'offline', after: 3600 } });
  assert.deepEqual(checkRule({ kind: 'offline', after: 60 }, places), { ok: true, rule: { kind: 'offline', after: 60 } });
  assert.deepEqual(checkRule({ kind: 'place-arrive', place: 7 }, places), { ok: true, rule: { kind: 'place-arrive', place: 7 } });
  assert.deepEqual(checkRule({ kind: 'v12-low', threshold: 11.8 }, places), { ok: true, rule: { kind: 'v12-low', threshold: 11.8, after: 600 } });
  assert.deepEqual(checkRule({ kind: 'charge-started', threshold: 500, id: 9 }, places), { ok: true, rule: { kind: 'charge-started' } });
  assert.deepEqual(checkRule({ kind: 'drive-report' }, places), { ok: true, rule: { kind: 'drive-report' } });
});

test('bad bodies name the field', () => {
  const field = (body: unknown): string | null => {
    const r = checkRule(body, places);
    return r.ok ? null : r.field;
  };
  assert.equal(field({ kind: 'soc-reached', threshold: 101 }), 'threshold');
  assert.equal(field({ kind: 'soc-below', threshold: -1 }), 'threshold');
  assert.equal(field({ kind: 'soc-below', threshold: '50' }), 'threshold');
  assert.equal(field({ kind: 'soc-reached' }), 'threshold');
  assert.equal(field({ kind: 'charge-stopped', after: 0 }), 'after');
  assert.equal(field({ kind: 'offline', after: 1.5 }), 'after');
  assert.equal(field({ kind: 'offline', after: -60 }), 'after');
  assert.equal(field({ kind: 'v12-low', threshold: 0, after: 60 }), 'threshold');
  assert.equal(field({ kind: 'v12-low', threshold: 11.5, after: '60' }), 'after');
  assert.equal(field({ kind: 'place-leave', place: 99 }), 'place'); // another owner's, or none
  assert.equal(field({ kind: 'place-leave' }), 'place');
  assert.equal(field({ kind: 'place-arrive', place: '7' }), 'place');
  assert.equal(field({ kind: 'tyre-flat' }), 'kind');
  assert.equal(field({ threshold: 80 }), 'kind');
  assert.equal(field([]), 'body');
  assert.equal(field(null), 'body');
  const r = checkRule({ kind: 'soc-reached', threshold: 120 }, places);
  assert.ok(!r.ok && /0 to 100/.test(r.message));
});

test('signature: equal settings, equal text; any change, another', () => {
  assert.equal(ruleSignature({ kind: 'v12-low', threshold: 11.8, after: 600 }), ruleSignature({ kind: 'v12-low', after: 600, threshold: 11.8 }));
  assert.notEqual(ruleSignature({ kind: 'v12-low', threshold: 11.8, after: 600 }), ruleSignature({ kind: 'v12-low', threshold: 11.8, after: 601 }));
  assert.notEqual(ruleSignature({ kind: 'soc-below', threshold: 20 }), ruleSignature({ kind: 'soc-reached', threshold: 20 }));
});
