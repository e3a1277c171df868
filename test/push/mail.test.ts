/** The e-mail provider (src/push/providers/mail.ts) against a local SMTP sink. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { pino } from 'pino';
import { isVtsError } from '../../src/errors.js';
import { createMailProvider, mailErrorResult, mailMessage, parseSmtpUrl } from '../../src/push/providers/mail.js';
import type { DeliveryItem, ProviderDeps, PushProvider } from '../../src/push/provider.js';
import { SmtpSink } from '../support/push/smtp-sink.js';
import { deliveryItem } from '../support/push/delivery-item.js';

const deps: ProviderDeps = { log: pino({ level: 'silent' }), now: () => 1_700_000_000_000 };
const signal = new AbortController().signal;

const item = (over: Partial<DeliveryItem> = {}): DeliveryItem => deliveryItem('mail', { notificationId: 9, text: '12 V battery low: 11.2 V', appId: 'sub-1', address: 'owner@example.com', ...over });

let sink: SmtpSink;
let authSink: SmtpSink;
let provider: PushProvider;

before(async () => {
  sink = await SmtpSink.start();
  authSink = await SmtpSink.start({ auth: { user: 'vts@example.com', pass: 'p@ss w:rd' } });
  provider = createMailProvider({ smtpUrl: sink.url, from: 'alerts@example.com' }, deps);
});
after(async () => {
  await provider.close();
  await sink.close();
  await authSink.close();
});

test('the message: reference subject with the vehicle label, text then vehicle and UTC time', () => {
  assert.deepEqual(mailMessage(item(), 'alerts@example.com'), {
    from: 'alerts@example.com',
    to: 'owner@example.com',
    subject: 'OVMS notification type A from My Leaf (DEMO1)',
    text: '12 V battery low: 11.2 V\n\nVehicle: My Leaf (DEMO1)\nTime: 2023-11-14 22:13:20 UTC\n',
  });
  assert.equal(mailMessage(item({ vehicleName: '' }), 'x@y').subject, 'OVMS notification type A from DEMO1');
});

test('--smtp-url: smtp and smtps, default ports, percent-encoded credentials', () => {
  assert.deepEqual(parseSmtpUrl('smtp://mail.example.com'), { secure: false, host: 'mail.example.com', port: 587 });
  assert.deepEqual(parseSmtpUrl('smtps://u%40x:p%3Aw@mail.example.com'), {
    secure: true,
    host: 'mail.example.com',
    port: 465,
    auth: { user: 'u@x', pass: 'p:w' },
  });
  assert.equal(parseSmtpUrl('smtp://[::1]:2525').host, '::1');
});

test('a wrong --smtp-url: VTS_ERR_PUSH_CONFIG in one line, never the password', () => {
  for (const url of ['http://u:hunter2@host', 'smtp//u:hunter2@host', 'smtp://u:hunter2@', 'smtp://u:%E0%A4%A@host']) {
    assert.throws(
      () => createMailProvider({ smtpUrl: url }, deps),
      (err: unknown) => isVtsError(err, 'VTS_ERR_PUSH_CONFIG') && !err.message.includes('hunter2') && !err.message.includes('\n'),
      url,
    );
  }
});

test('description: server and sender, no password', () => {
  assert.match(provider.description, /^on, smtp:\/\/127\.0\.0\.1:\d+, from alerts@example\.com$/);
  const p = createMailProvider({ smtpUrl: 'smtps://me:hunter2@mail.example.com' }, deps);
  assert.equal(p.description, `on, smtps://mail.example.com:465 as me, from vts@${hostname()}`);
  void p.close();
});

test('delivered: the sink gets the message', async () => {
  const before = sink.messages.length;
  const [r] = await provider.send([item({ vehicleName: 'Zoë', text: 'Alarm ✓\nline 2' })], signal);
  assert.equal(r?.kind, 'delivered');
  assert.match(r!.detail, /^delivered \(250 .*\)$/);
  const m = sink.messages[before]!;
  assert.deepEqual(m.envelope, { from: 'alerts@example.com', to: ['owner@example.com'] });
  assert.equal(m.from, 'alerts@example.com');
  assert.equal(m.to, 'owner@example.com');
  assert.equal(m.subject, 'OVMS notification type A from Zoë (DEMO1)');
  assert.equal(m.text, 'Alarm ✓\nline 2\n\nVehicle: Zoë (DEMO1)\nTime: 2023-11-14 22:13:20 UTC\n');
});

test('with authentication; the default sender', async () => {
  const p = createMailProvider({ smtpUrl: authSink.url }, deps);
  try {
    assert.equal((await p.send([item()], signal))[0]?.kind, 'delivered');
    const m = authSink.messages.at(-1)!;
    assert.equal(m.user, 'vts@example.com');
    assert.equal(m.envelope.from, `vts@${hostname()}`);
  } finally {
    await p.close();
  }
  const wrong = createMailProvider({ smtpUrl: authSink.url.replace('p%40ss', 'nope') }, deps);
  try {
    const [r] = await wrong.send([item()], signal);
    assert.equal(r?.kind, 'permanent');
    assert.match(r!.detail, /^SMTP 535 /);
    assert.ok(!r!.detail.includes('w:rd'));
  } finally {
    await wrong.close();
  }
});

test('recipient rejected: 5xx permanent (an unknown mailbox too), 4xx temporary', async () => {
  sink.reject('gone@example.com', 550, 'mailbox unknown').reject('full@example.com', 452, 'mailbox full', 1);
  const results = await provider.send([item({ address: 'gone@example.com' })], signal);
  assert.equal(results[0]?.kind, 'permanent');
  assert.match(results[0]!.detail, /^SMTP 550 mailbox unknown/);
  const [t] = await provider.send([item({ address: 'full@example.com' })], signal);
  assert.equal(t?.kind, 'temporary');
  assert.match(t!.detail, /^SMTP 452 mailbox full/);
  assert.equal((await provider.send([item({ address: 'full@example.com' })], signal))[0]?.kind, 'delivered');
});

test('nobody listening: temporary', async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const p = createMailProvider({ smtpUrl: `smtp://127.0.0.1:${port}` }, deps);
  try {
    const [r] = await p.send([item()], signal);
    assert.equal(r?.kind, 'temporary');
    assert.match(r!.detail, /^connection failed \(E[A-Z]+: .*ECONNREFUSED/);
  } finally {
    await p.close();
  }
});

test('a hanging server: temporary when the signal aborts', async () => {
  const hanging = await SmtpSink.start();
  hanging.hang('rcpt');
  const p = createMailProvider({ smtpUrl: hanging.url }, deps);
  try {
    const ac = new AbortController();
    const pending = p.send([item()], ac.signal);
    await hanging.waitForRecipients(1);
    ac.abort();
    assert.deepEqual(await pending, [{ kind: 'temporary', detail: 'no answer in time' }]);
  } finally {
    await p.close();
    await hanging.close();
  }
});

test('error mapping without a server', () => {
  assert.equal(mailErrorResult(Object.assign(new Error('x'), { code: 'EENVELOPE', responseCode: 421, response: '421 busy' })).kind, 'temporary');
  assert.equal(mailErrorResult(Object.assign(new Error('x'), { code: 'EMESSAGE', responseCode: 554, response: '554 spam' })).kind, 'permanent');
  assert.equal(mailErrorResult(Object.assign(new Error('Greeting never received'), { code: 'ETIMEDOUT' })).kind, 'temporary');
  assert.equal(mailErrorResult(Object.assign(new Error('No recipients defined'), { code: 'EENVELOPE' })).kind, 'permanent');
});
