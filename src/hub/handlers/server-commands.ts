/** Commands 30, 31 and 32, answered by the server itself (docs/protocol/mp.md §11.4). */
import { commandParams } from '../../core/mp/command.js';
import {
  historicalRecordsResponse,
  historicalSummaryResponse,
  utilisationResponse,
  type UtilisationDay,
} from '../../core/mp/server-commands.js';
import { parseSince, startOfUtcDay, utcDay } from '../../core/time.js';
import type { HubPort } from './port.js';
import type { Peer } from '../links/peer.js';
import type { VehicleLink } from '../links/vehicle-link.js';

export function answerServerCommand(hub: HubPort, peer: Peer, link: VehicleLink, fn: number, data: string): void {
  answer(hub, link, fn, commandParams(data)).then(
    (lines) => {
      for (const line of lines) hub.deliver(peer, 'c', line);
    },
    (err: unknown) => {
      hub.log.error({ err, conn: peer.id, fn }, 'server command failed');
      hub.deliver(peer, 'c', `${fn},1,Server error`);
    },
  );
}

async function answer(hub: HubPort, link: VehicleLink, fn: number, params: string): Promise<string[]> {
  const vehicleId = link.vehicleId;
  if (fn === 30) {
    const today = startOfUtcDay(hub.seconds());
    const rows = await hub.store.getUtilisation(vehicleId, today - (hub.options.utilisationDays - 1) * 86400);
    const days = new Map<number, UtilisationDay>();
    for (const r of rows) {
      if (r.clientType !== 'C' && r.clientType !== 'A') continue;
      let d = days.get(r.day);
      if (!d) days.set(r.day, (d = { day: utcDay(r.day), carRx: 0, carTx: 0, appRx: 0, appTx: 0 }));
      // "car received" is what the server sent to the car, and so on (docs/protocol/mp.md §17)
      if (r.clientType === 'C') {
        d.carRx += r.tx;
        d.carTx += r.rx;
      } else {
        d.appRx += r.tx;
        d.appTx += r.rx;
      }
    }
    return utilisationResponse([...days.entries()].sort((a, b) => b[0] - a[0]).map(([, d]) => d));
  }
  const fields = params === '' ? [] : params.split(',');
  if (fn === 31) {
    const since = sinceOf(fields[0]);
    if (since === null) return ['31,1,Invalid date'];
    return historicalSummaryResponse(await hub.store.summarizeHistorical(vehicleId, since));
  }
  // 32: <recordtype>[,<since>]
  const type = fields[0] ?? '';
  const since = sinceOf(fields[1]);
  if (since === null) return ['32,1,Invalid date'];
  const rows = type === '' ? [] : await hub.store.getHistorical(vehicleId, type, since);
  return historicalRecordsResponse(rows.map((r) => ({ type: r.type, time: r.time, recordNumber: r.recordNumber, data: r.data })));
}

/** An absent or empty `since` means everything. */
function sinceOf(text: string | undefined): number | null {
  if (text === undefined || text.trim() === '') return -1;
  return parseSince(text);
}
