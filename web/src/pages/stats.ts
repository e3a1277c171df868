/**
 * Vehicle / Stats (`GET /api/stats/<id>?period&from&to&tz`): bars per month (or day, week, year) of
 * distance, energy and cost, and the same figures as a table.
 */
import type { Chart } from 'chart.js';
import { ApiError, stats } from '../api';
import { barChart, type BarSpec } from '../charts';
import { field, h, on, replace, setText } from '../dom';
import { fmt } from '../format';
import type { StatsPeriod, StatsRow } from '../types';
import { emptyState, errorText, money } from './session-parts';
import type { Panel, VehicleContext } from './vehicle';

const DAY = 86400;
/** How far back each period goes. */
const SPANS: Record<StatsPeriod, { label: string; back: (now: Date) => Date }> = {
  day: { label: 'Days (last 30)', back: (n) => new Date(n.getFullYear(), n.getMonth(), n.getDate() - 29) },
  week: { label: 'Weeks (last 12)', back: (n) => new Date(n.getFullYear(), n.getMonth(), n.getDate() - 7 * 11 - ((n.getDay() + 6) % 7)) },
  month: { label: 'Months (last 12)', back: (n) => new Date(n.getFullYear(), n.getMonth() - 11, 1) },
  year: { label: 'Years (last 5)', back: (n) => new Date(n.getFullYear() - 4, 0, 1) },
};

function label(t: number, period: StatsPeriod): string {
  const d = new Date(t * 1000);
  if (period === 'year') return String(d.getFullYear());
  if (period === 'month') return d.toLocaleDateString(undefined, { month: 'short', year: '2-digit' });
  return d.toLocaleDateString(undefined, { day: '2-digit', month: '2-digit' });
}

interface BarBox {
  figure: HTMLElement;
  canvas: HTMLCanvasElement;
  chart: Chart | null;
}

function barBox(testid: string, title: string): BarBox {
  const canvas = h('canvas', { role: 'img', 'aria-label': title });
  return { figure: h('figure', { class: 'card chart', 'data-testid': testid }, h('figcaption', {}, title), h('div', { class: 'chart-area' }, canvas)), canvas, chart: null };
}

export function statsPanel(ctx: VehicleContext): Panel {
  const period = h(
    'select',
    { 'data-testid': 'stats-period', name: 'period' },
    ...(Object.keys(SPANS) as StatsPeriod[]).map((p) => h('option', { value: p, selected: p === 'month' }, SPANS[p].label)),
  );
  const form = h('form', { class: 'toolbar' }, field('Per', period));
  const status = h('p', { class: 'muted', role: 'status', 'data-testid': 'stats-status' });
  const errorBox = h('p', { class: 'error', role: 'alert', hidden: true });
  const distance = barBox('chart-stats-distance', 'Distance');
  const energy = barBox('chart-stats-energy', 'Energy (kWh)');
  const cost = barBox('chart-stats-cost', 'Cost of charging');
  const boxes = [distance, energy, cost];
  const tbody = h('tbody', {});
  const table = h(
    'table',
    { class: 'sessions responsive', 'data-testid': 'stats-table' },
    h('caption', { class: 'visually-hidden' }, 'Figures per period'),
    h('thead', {}, h('tr', {}, ...['Period', 'Distance', 'Drives', 'Used', 'Charges', 'Added / grid', 'Cost', 'Efficiency', 'Drain / day'].map((c) => h('th', { scope: 'col' }, c)))),
    tbody,
  );
  const empty = emptyState('stats-empty', 'Nothing to count in this period yet.', 'The figures add up the drives and charges; they appear with the first one.');
  empty.hidden = true;
  const el = h('div', { class: 'panel stats' }, form, status, errorBox, empty, h('div', { class: 'charts' }, ...boxes.map((b) => b.figure)), h('div', { class: 'card' }, table));
  let alive = true;
  let loaded = false;
  let request = 0;

  function bars(box: BarBox, spec: BarSpec): void {
    box.chart?.destroy();
    box.chart = barChart(box.canvas, spec);
  }

  function show(rows: StatsRow[], p: StatsPeriod): void {
    const labels = rows.map((r) => label(r.start, p));
    // the currency of the costs (the first one given); the rows should all share it
    const currency = rows.find((r) => r.currency)?.currency ?? null;
    bars(distance, { labels, axis: 'Distance', series: [{ label: 'Distance', values: rows.map((r) => r.distance), color: '#0b66c3' }] });
    bars(energy, {
      labels,
      axis: 'kWh',
      series: [
        { label: 'Used driving', values: rows.map((r) => r.energyUsed), color: '#d9480f' },
        { label: 'Added charging', values: rows.map((r) => r.energyAdded), color: '#2e9e5b' },
      ],
    });
    bars(cost, { labels, axis: currency ?? 'Cost', series: [{ label: 'Cost', values: rows.map((r) => r.cost), color: '#7048e8' }] });
    replace(
      tbody,
      // the table lists the periods with something in them (the bars show every one)
      ...[...rows].reverse().filter((r) => r.drives > 0 || r.charges > 0).map((r) =>
        h(
          'tr',
          { 'data-testid': 'stats-row' },
          h('td', { 'data-label': 'Period' }, label(r.start, p)),
          h('td', { 'data-label': 'Distance', class: 'num' }, fmt(r.distance, '', 1)),
          h('td', { 'data-label': 'Drives', class: 'num' }, String(r.drives)),
          h('td', { 'data-label': 'Used', class: 'num' }, fmt(r.energyUsed, 'kWh', 1)),
          h('td', { 'data-label': 'Charges', class: 'num' }, String(r.charges)),
          h('td', { 'data-label': 'Added / grid', class: 'num' }, `${fmt(r.energyAdded, '', 1)} / ${fmt(r.energyFromGrid, 'kWh', 1)}`),
          h('td', { 'data-label': 'Cost', class: 'num' }, money(r.cost, r.currency)),
          h('td', { 'data-label': 'Efficiency', class: 'num' }, fmt(r.efficiency, 'Wh', 0)),
          h('td', { 'data-label': 'Drain / day', class: 'num' }, fmt(r.vampireDrain, '%', 2)),
        ),
      ),
    );
    const any = rows.some((r) => r.drives > 0 || r.charges > 0);
    empty.hidden = any;
    const drives = rows.reduce((n, r) => n + r.drives, 0);
    const charges = rows.reduce((n, r) => n + r.charges, 0);
    setText(status, `${rows.length} period${rows.length === 1 ? '' : 's'} · ${drives} drive${drives === 1 ? '' : 's'} · ${charges} charge${charges === 1 ? '' : 's'}`);
  }

  async function load(): Promise<void> {
    const p = period.value as StatsPeriod;
    const now = new Date();
    const from = Math.floor(SPANS[p].back(now).getTime() / 1000);
    const to = Math.ceil(now.getTime() / 1000) + DAY;
    const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const mine = ++request;
    errorBox.hidden = true;
    setText(status, 'Loading…');
    try {
      const rows = await stats(ctx.id, p, from, to, tz);
      if (alive && mine === request) show([...rows].sort((a, b) => a.start - b.start), p);
    } catch (err) {
      if (!alive || mine !== request) return;
      setText(status, '');
      setText(errorBox, `The statistics could not be loaded: ${errorText(err)}`);
      errorBox.hidden = false;
      if (err instanceof ApiError && err.status === 403) ctx.refused();
    }
  }

  on(period, { change: () => void load() });
  on(form, { submit: (ev) => ev.preventDefault() });

  return {
    el,
    shown() {
      if (!loaded) {
        loaded = true;
        requestAnimationFrame(() => void load());
      }
    },
    destroy() {
      alive = false;
      for (const b of boxes) b.chart?.destroy();
    },
  };
}
