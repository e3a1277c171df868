/**
 * `vts invite create|list|remove`: the invitation codes of `--registration invite`
 * (docs/accounts.md "Sign-up and recovery"). A code is printed once, when it is made; the
 * database keeps its SHA-256 only, so a list shows each code by the first characters of that hash
 * (its id, which `remove` takes), its uses left and when it expires.
 */
import type { Command } from 'commander';
import { newInviteCode, secretHash } from '../auth/signup.js';
import { formatUtc } from '../core/time.js';
import { VtsError } from '../errors.js';
import { auditCli } from '../util/audit.js';
import { recordCli } from '../auth/audit-log.js';
import { resolveOptions } from '../util/config.js';
import { addStoreOptions, formatTable, say, withStore, type StoreCommandOptions } from './shared-options.js';

/** The characters of a code's hash that name it in `list` and `remove`. */
const ID_LENGTH = 12;

interface CreateOptions extends StoreCommandOptions {
  uses: number;
  expires?: number;
}

interface ListOptions extends StoreCommandOptions {
  json?: boolean;
}

/** `30m`, `12h`, `7d`, `2w`: seconds (at most 10 years). */
export function parseLifetime(value: string): number {
  const m = /^\s*(\d{1,6})\s*([mhdw])\s*$/i.exec(value);
  const unit = { m: 60, h: 3600, d: 86_400, w: 604_800 }[(m?.[2] ?? '').toLowerCase() as 'm' | 'h' | 'd' | 'w'];
  const seconds = m && unit ? Number(m[1]) * unit : NaN;
  if (!(seconds > 0 && seconds <= 3650 * 86_400)) throw new Error(`not a time like 30m, 12h, 7d or 2w (at most 10 years): ${value}`);
  return seconds;
}

function parseUses(value: string): number {
  const n = Number(value.trim());
  if (!/^\d{1,6}$/.test(value.trim()) || n < 1) throw new Error(`not a number of uses from 1 to 999999: ${value}`);
  return n;
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export function registerInvite(program: Command): void {
  const invite = program.command('invite').description('invitation codes for sign-up with --registration invite');

  const create = invite
    .command('create')
    .description('make an invitation code (printed once: the database keeps only its hash)')
    .option('--uses <n>', 'how many accounts it may make', parseUses, 1)
    .option('--expires <time>', 'how long it works: 30m, 12h, 7d, 2w (default: until used up)', parseLifetime);
  addStoreOptions(create).action(async () => {
    const o = resolveOptions<CreateOptions>(create);
    const code = newInviteCode();
    const hash = secretHash(code);
    const now = nowSeconds();
    const expires = o.expires === undefined ? null : now + o.expires;
    await withStore(
      o,
      async (store) => {
        await store.signup.addInvite({ codeHash: hash, usesLeft: o.uses, expires, created: now });
        await recordCli(store, 'invite.create', hash.slice(0, ID_LENGTH), { uses: o.uses, expires });
      },
      { create: true },
    );
    auditCli('invite.create', { invite: hash.slice(0, ID_LENGTH), uses: o.uses, ...(expires === null ? {} : { expires: formatUtc(expires) }) });
    say(code);
    process.stderr.write(
      `vts: invitation ${hash.slice(0, ID_LENGTH)}: ${o.uses} ${o.uses === 1 ? 'use' : 'uses'}${expires === null ? '' : `, until ${formatUtc(expires)} UTC`}; the code is shown only now\n`,
    );
  });

  const list = invite.command('list').description('list the invitation codes (by id: the start of their hash; times in UTC)').option('--json', 'print a JSON array');
  addStoreOptions(list).action(async () => {
    const o = resolveOptions<ListOptions>(list);
    const rows = (await withStore(o, (store) => store.signup.listInvites())).map((i) => ({
      id: i.codeHash.slice(0, ID_LENGTH),
      usesLeft: i.usesLeft,
      expires: i.expires === null ? null : formatUtc(i.expires),
      expired: i.expires !== null && i.expires < nowSeconds(),
      created: formatUtc(i.created),
    }));
    if (o.json) {
      process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
      return;
    }
    process.stdout.write(
      formatTable(
        ['ID', 'USES LEFT', 'EXPIRES (UTC)', 'CREATED (UTC)'],
        rows.map((r) => [r.id, String(r.usesLeft), r.expires === null ? 'never' : `${r.expires}${r.expired ? ' (expired)' : ''}`, r.created]),
      ),
    );
  });

  const remove = invite.command('remove').description('remove an invitation code: its id of vts invite list, or the code itself').argument('<id|code>', 'the id (or the code)');
  addStoreOptions(remove).action(async (idArg: string) => {
    const o = resolveOptions<StoreCommandOptions>(remove);
    const given = idArg.trim();
    const prefix = /^[0-9a-f]{12,64}$/i.test(given) ? given.toLowerCase() : secretHash(given);
    const removed = await withStore(o, async (store) => {
      const matching = (await store.signup.listInvites()).filter((i) => i.codeHash.startsWith(prefix));
      if (matching.length > 1) throw new VtsError('VTS_ERR_INVALID_INPUT', `${given} names ${matching.length} invitations: give more of the id`);
      if (matching.length === 0) return 0;
      const n = await store.signup.removeInvites(prefix);
      await recordCli(store, 'invite.remove', prefix.slice(0, ID_LENGTH));
      return n;
    });
    if (removed === 0) throw new VtsError('VTS_ERR_NOT_FOUND', `no invitation ${given}`);
    auditCli('invite.remove', { invite: prefix.slice(0, ID_LENGTH) });
    say(`invitation ${prefix.slice(0, ID_LENGTH)} removed`);
  });
}
