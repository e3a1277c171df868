/** `vts notify add|list|remove`: a user's webhook and ntfy targets (issue 15). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../src/store/open.js';
import { dataDir, vts } from './admin-helpers.js';

async function withUser(dir: string): Promise<void> {
  const r = await vts(['user', 'add', 'demo', '--password', 'password', '--data-dir', dir]);
  assert.equal(r.code, 0, r.stderr);
}

test('add, list (secret and URL credentials never shown), remove', async (t) => {
  const dir = dataDir(t);
  await withUser(dir);
  const hook = await vts(['notify', 'add', 'demo', 'webhook', 'https://ha.example/api/webhook/car', '--secret', 's3cret-value', '--data-dir', dir]);
  assert.deepEqual(hook, { code: 0, stdout: 'webhook target 1 added for demo (signed)\n', stderr: '' });
  const topic = await vts(['notify', 'add', 'DEMO', 'ntfy', 'https://alice:pw@ntfy.example/car-alerts', '--data-dir', dir]);
  assert.deepEqual(topic, { code: 0, stdout: 'ntfy target 2 added for demo\n', stderr: '' });

  const list = await vts(['notify', 'list', 'demo', '--data-dir', dir]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^ID +KIND +URL +SIGNED +LAST RESULT\n/);
  assert.match(list.stdout, /1 +webhook +https:\/\/ha\.example\/api\/webhook\/car +yes +-/);
  assert.ok(!list.stdout.includes('s3cret') && !list.stdout.includes('alice') && !list.stdout.includes('pw@'), list.stdout);

  const json = await vts(['notify', 'list', 'demo', '--json', '--data-dir', dir]);
  const rows = JSON.parse(json.stdout) as { id: number; kind: string; signed: boolean }[];
  assert.deepEqual(rows.map((r) => [r.id, r.kind, r.signed]), [[1, 'webhook', true], [2, 'ntfy', false]]);
  assert.ok(!json.stdout.includes('s3cret'));

  assert.deepEqual(await vts(['notify', 'remove', 'demo', '1', '--data-dir', dir]), { code: 0, stdout: 'target 1 of demo removed\n', stderr: '' });
  const store = await openStore(dir);
  t.after(() => store.close());
  const owner = await store.getOwnerByName('demo');
  assert.deepEqual((await store.push.listTargets(owner!.id)).map((x) => x.kind), ['ntfy']);
});

test('mistakes get one line that says what to do, and change nothing', async (t) => {
  const dir = dataDir(t);
  await withUser(dir);
  const cases: [string[], RegExp][] = [
    [['notify', 'add', 'demo', 'pager', 'https://x.example/'], /webhook or ntfy/],
    [['notify', 'add', 'demo', 'webhook', 'ftp://x.example/'], /https:\/\//],
    [['notify', 'add', 'demo', 'ntfy', 'https://ntfy.sh/'], /one topic/],
    [['notify', 'add', 'demo', 'ntfy', 'https://ntfy.sh/t', '--secret', 'x'], /--secret is for webhooks/],
    [['notify', 'add', 'nobody', 'webhook', 'https://x.example/'], /no such user: nobody/],
    [['notify', 'remove', 'demo', '7'], /demo has no target 7/],
    [['notify', 'remove', 'demo', 'x'], /not a target id/],
  ];
  for (const [args, message] of cases) {
    const r = await vts([...args, '--data-dir', dir]);
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.stderr, message);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
  const empty = await vts(['notify', 'list', 'demo', '--data-dir', dir]);
  assert.match(empty.stdout, /demo has no notification targets/);
});
