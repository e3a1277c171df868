/**
 * `GET /api/stats/<VEHICLEID>?period=day|week|month|year&from=&to=&tz=` (docs/web-api.md "Stats"):
 * one row per period from the one holding `from` through `to`, in the time zone `tz` (IANA, default UTC),
 * from src/core/drives/stats.ts. Default periods: 30 days of days, 26 weeks, a year of months,
 * 5 years of years. The efficiency of drives without their energy uses the battery's estimated
 * capacity (battery.ts).
 */
import { batteryReport } from '../../core/drives/battery.js';
import { statsReport, type StatsPeriod, type StatsRow } from '../../core/drives/stats.js';
import { ownVehicle, type ApiRoute } from '../api-call.js';
import { notYours } from './session.js';
import { allSessions, badInput, DAY, notFound, requestRange, sendOrdered } from './sessions-common.js';

const YEAR = 365 * DAY;

/** Per period: the default span back from `to`, and the longest span of one request. */
export const STATS_SPANS: Record<StatsPeriod, { span: number; max: number }> = {
  day: { span: 30 * DAY, max: 1000 * DAY },
  week: { span: 26 * 7 * DAY, max: 20 * YEAR },
  month: { span: YEAR, max: 50 * YEAR },
  year: { span: 5 * YEAR, max: 100 * YEAR },
};

const isPeriod = (p: string): p is StatsPeriod => Object.prototype.hasOwnProperty.call(STATS_SPANS, p);

function validZone(tz: string): boolean {
  if (tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** A row in the documented key order. */
const rowJson = (r: StatsRow): StatsRow => ({
  start: r.start,
  distance: r.distance,
  drives: r.drives,
  energyUsed: r.energyUsed,
  charges: r.charges,
  energyAdded: r.energyAdded,
  energyFromGrid: r.energyFromGrid,
  cost: r.cost,
  currency: r.currency,
  efficiency: r.efficiency,
  vampireDrain: r.vampireDrain,
});

export const stats: ApiRoute = {
  async handler(call) {
    const { ctx, params } = call;
    const vehicle = await ownVehicle(call, 'view');
    if (!vehicle) return notYours(call);
    if (call.args.length > 1) return notFound(call, 'GET /api/stats/<vehicle>');
    const period = params.period === undefined || params.period === '' ? 'month' : params.period;
    if (!isPeriod(period)) return badInput(call, 'period: day, week, month or year');
    const tz = params.tz === undefined || params.tz === '' ? 'UTC' : params.tz;
    if (!validZone(tz)) return badInput(call, 'tz: an IANA time zone such as Europe/Berlin');
    const range = requestRange(params, ctx.hub.seconds(), STATS_SPANS[period].span, STATS_SPANS[period].max);
    if ('field' in range) return badInput(call, range.message);
    const { drives, charges } = await allSessions(ctx.store, vehicle.id);
    const capacity = batteryReport(drives, charges).capacity.estimate;
    const rows = statsReport(drives, charges, period, tz, range.from, range.to, capacity);
    return sendOrdered(call.reply, 200, rows.map(rowJson));
  },
};
