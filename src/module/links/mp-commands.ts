/**
 * The module's answers to MP commands `C<code>[,<params>]` (docs/protocol/messages.md §5.2, FW3 behaviour):
 * vehicle actions give `c<code>,<0|1>`, an unsupported one `c<code>,2`; command 7 runs a console
 * command and answers one line `c7,0,<output>` with line breaks as CR and commas as `;`.
 */
import { encodeText } from '../../core/mp/command.js';
import type { ActionOutcome, ChargeMode } from '../vehicle/vehicle.js';
import type { LinkHost } from './host.js';

/** FW3 answers 32 slots for features and parameters. */
const SLOTS = 32;

const MODES: Record<string, ChargeMode> = { '0': 'standard', '1': 'storage', '3': 'range', '4': 'performance' };

/** Parameter numbers mapped to module configuration (docs/protocol/messages.md §5.4). */
const PARAMS: Record<number, [string, string]> = {
  0: ['vehicle', 'registered.phone'],
  2: ['vehicle', 'units.distance'],
  4: ['server.v2', 'server'],
  5: ['modem', 'apn'],
  6: ['modem', 'apn.user'],
  8: ['vehicle', 'id'],
  14: ['auto', 'vehicle.type'],
  22: ['network', 'dns'],
  23: ['vehicle', 'timezone'],
};

const result = (code: number, outcome: ActionOutcome): string =>
  `${code},${outcome === 'ok' ? 0 : outcome === 'failed' ? 1 : 2}`;

export interface CommandReply {
  /** `c` payloads to send, in order. */
  lines: string[];
  /** Something to do after the replies went out (a reboot). */
  after?: () => void;
  /** A later unsolicited reply (USSD). */
  later?: Promise<string>;
}

export async function answerCommand(host: LinkHost, data: string, features: Map<number, string>): Promise<CommandReply> {
  const comma = data.indexOf(',');
  const code = Number(comma < 0 ? data : data.slice(0, comma));
  const params = comma < 0 ? '' : data.slice(comma + 1);
  const args = params === '' ? [] : params.split(',');
  const v = host.vehicle;
  const one = (line: string): CommandReply => ({ lines: [line] });
  switch (code) {
    case 1:
      return { lines: Array.from({ length: SLOTS }, (_, n) => `1,0,${n},${SLOTS},${features.get(n) ?? 0}`) };
    case 2: {
      const n = Number(args[0]);
      if (args.length < 2 || !Number.isInteger(n) || n < 0 || n >= SLOTS) return one('2,1,Missing feature key');
      features.set(n, args[1]!);
      return one('2,0,');
    }
    case 3:
      return {
        lines: Array.from({ length: SLOTS }, (_, n) => {
          const p = PARAMS[n];
          const value = p ? (host.config.get(p[0], p[1]) ?? '') : '';
          return `3,0,${n},${SLOTS},${encodeText(value)}`;
        }),
      };
    case 4: {
      const p = PARAMS[Number(args[0])];
      if (args.length < 2) return one('4,1,Missing parameter key');
      if (!p) return one('4,1,Parameter key not supported');
      host.config.set(p[0], p[1], args.slice(1).join(','));
      return one('4,0,');
    }
    case 5:
      // FW3 sends no c5: an empty line, then it reboots
      return { lines: [], after: () => host.reboot() };
    case 6:
      return one('6,0');
    case 7:
      return one(`7,0,${encodeText(await host.runner.execute(params))}`);
    case 10: {
      const mode = MODES[args[0] ?? ''];
      return one(mode ? result(10, v.chargeMode(mode)) : '10,1');
    }
    case 11:
      return one(result(11, v.chargeStart()));
    case 12:
      return one(result(12, v.chargeStop()));
    case 15:
      return one(result(15, v.chargeCurrent(Number(args[0]))));
    case 16: {
      const mode = MODES[args[0] ?? ''];
      if (!mode) return one('16,1');
      const m = v.chargeMode(mode);
      return one(result(16, m === 'ok' ? v.chargeCurrent(Number(args[1])) : m));
    }
    case 18:
    case 19:
      return one(result(code, v.wakeup()));
    case 20:
    case 21:
    case 22:
    case 23: {
      const pin = args[0];
      if (pin === undefined || pin === '') return one(`${code},1`);
      const act = code === 20 ? v.lock(pin) : code === 21 ? v.valet(pin) : code === 22 ? v.unlock(pin) : v.unvalet(pin);
      return one(result(code, act));
    }
    case 24: {
      const button = args[0] === undefined || args[0] === '' ? 0 : Number(args[0]);
      if (!Number.isInteger(button) || button < 0 || button > 2) return one('24,1');
      return one(result(24, v.homelink(button + 1, 1000)));
    }
    case 25:
      return one(result(25, v.chargeCooldown()));
    case 26:
      return one(result(26, v.climate(args[0] === '1')));
    case 40:
      return one('40,2');
    case 41: {
      if (params === '') return one('41,1,No command');
      const reply = `USSD reply to ${params}: your balance is 12.34 EUR`;
      return { lines: ['41,0'], later: new Promise((r) => setTimeout(() => r(`41,0,${encodeText(reply)}`), 500).unref()) };
    }
    case 49: {
      if (params === '') return one('49,1,No command');
      if (!/^AT/i.test(params)) return one('49,1,\r\nERROR\r\n');
      // FW3 does not mp_encode the modem output
      return one(`49,0,${params}\r\n\r\nOK\r\n`);
    }
    default:
      return one(`${Number.isFinite(code) ? code : data},2`);
  }
}
