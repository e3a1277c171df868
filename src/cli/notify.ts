/**
 * `vts notify add|list|remove`: a user's own notification targets, a webhook (an HTTP POST of a
 * JSON document, optionally signed) or an ntfy topic, which get every notification of the user's
 * vehicles.
 */
import type { Command } from 'commander';
import { auditCli } from '../util/audit.js';
import { resolveOptions } from '../util/config.js';
import { isTargetKind, type TargetKind } from '../core/push/channels.js';
import { MAX_TARGETS, maskedUrl, targetSecretProblem, targetUrlProblem } from '../core/push/targets.js';
import { formatUtc } from '../core/time.js';
import { VtsError } from '../errors.js';
import type { Owner, Store } from '../store/store.js';
import { addStoreOptions, formatTable, passwordFromOption, say, validateUserName, withStore, type StoreCommandOptions } from './shared-options.js';

interface AddOptions extends StoreCommandOptions {
  secret?: string;
}

interface ListOptions extends StoreCommandOptions {
  json?: boolean;
}

async function ownerOf(store: Store, name: string): Promise<Owner> {
  const owner = await store.getOwnerByName(name);
  if (!owner) throw new VtsError('VTS_ERR_UNKNOWN_USER', name);
  return owner;
}

function parseKind(text: string): TargetKind {
  const kind = text.toLowerCase();
  if (!isTargetKind(kind)) throw new VtsError('VTS_ERR_INVALID_INPUT', `the kind of target is webhook or ntfy, not ${JSON.stringify(text)}`);
  return kind;
}

function parseId(text: string): number {
  if (!/^\d{1,9}$/.test(text)) throw new VtsError('VTS_ERR_INVALID_INPUT', `not a target id (see 'vts notify list'): ${JSON.stringify(text)}`);
  return Number(text);
}

export function registerNotify(program: Command): void {
  const notify = program.command('notify').description("manage a user's own notification targets (webhook, ntfy)");

  const add = notify
    .command('add')
    .description('send every notification of the user\'s vehicles to a webhook or an ntfy topic')
    .argument('<user>', 'the user')
    .argument('<kind>', 'webhook or ntfy')
    .argument('<url>', 'webhook: the URL to POST to; ntfy: the topic URL, e.g. https://ntfy.sh/my-car-alerts')
    .option('--secret <secret>', 'webhook: sign each request with HMAC-SHA256 of this secret (header X-Vts-Signature); "-" reads it from stdin');
  addStoreOptions(add).action(async (userArg: string, kindArg: string, url: string) => {
    const o = resolveOptions<AddOptions>(add);
    const user = validateUserName(userArg);
    const kind = parseKind(kindArg);
    const urlProblem = targetUrlProblem(kind, url);
    if (urlProblem) throw new VtsError('VTS_ERR_INVALID_INPUT', urlProblem);
    if (o.secret !== undefined && kind !== 'webhook') throw new VtsError('VTS_ERR_INVALID_INPUT', '--secret is for webhooks (ntfy takes its access in the URL: https://user:password@host/topic)');
    const secret = o.secret === undefined ? '' : await passwordFromOption(o.secret, 'secret');
    const secretProblem = targetSecretProblem(secret);
    if (secretProblem) throw new VtsError('VTS_ERR_INVALID_INPUT', secretProblem);
    const { target, owner } = await withStore(o, async (store) => {
      const owner = await ownerOf(store, user);
      if ((await store.push.listTargets(owner.id)).length >= MAX_TARGETS) {
        throw new VtsError('VTS_ERR_INVALID_INPUT', `${owner.name} has ${MAX_TARGETS} targets already: remove one first`);
      }
      return { target: await store.push.addTarget(owner.id, kind, url, secret, Math.floor(Date.now() / 1000)), owner };
    });
    auditCli('notify.add', { user: owner.name, target: target.id, kind, signed: secret !== '' });
    say(`${kind} target ${target.id} added for ${owner.name}${secret ? ' (signed)' : ''}`);
  });

  const list = notify
    .command('list')
    .description("list a user's targets with their last delivery result (times in UTC)")
    .argument('<user>', 'the user')
    .option('--json', 'print a JSON array');
  addStoreOptions(list).action(async (userArg: string) => {
    const o = resolveOptions<ListOptions>(list);
    const user = validateUserName(userArg);
    const targets = await withStore(o, async (store) => store.push.listTargets((await ownerOf(store, user)).id));
    // never the secret, nor a password in the URL
    const rows = targets.map((t) => ({
      id: t.id,
      kind: t.kind,
      url: maskedUrl(t.url),
      signed: t.secret !== '',
      created: formatUtc(t.created),
      lastResult: t.lastResult,
      lastTime: t.lastTime === null ? null : formatUtc(t.lastTime),
    }));
    if (o.json) {
      process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
      return;
    }
    if (rows.length === 0) {
      say(`${user} has no notification targets: add one with 'vts notify add ${user} webhook|ntfy <url>'`);
      return;
    }
    process.stdout.write(
      formatTable(
        ['ID', 'KIND', 'URL', 'SIGNED', 'LAST RESULT'],
        rows.map((r) => [String(r.id), r.kind, r.url, r.signed ? 'yes' : 'no', r.lastTime ? `${r.lastTime} ${r.lastResult}` : '-']),
      ),
    );
  });

  const remove = notify
    .command('remove')
    .description('remove one of a user\'s targets')
    .argument('<user>', 'the user')
    .argument('<id>', "the target's id (see 'vts notify list')");
  addStoreOptions(remove).action(async (userArg: string, idArg: string) => {
    const o = resolveOptions<StoreCommandOptions>(remove);
    const user = validateUserName(userArg);
    const id = parseId(idArg);
    const found = await withStore(o, async (store) => store.push.removeTarget((await ownerOf(store, user)).id, id));
    if (!found) throw new VtsError('VTS_ERR_INVALID_INPUT', `${user} has no target ${id} (see 'vts notify list ${user}')`);
    auditCli('notify.remove', { user, target: id });
    say(`target ${id} of ${user} removed`);
  });
}
