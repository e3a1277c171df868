/**
 * Vehicle / Battery (`GET /api/battery/<id>`): the capacity estimate, the highest seen and the
 * degradation between them; capacity per charge and the car's SOH over time; vampire drain.
 */
import { ApiError, battery } from '../api';
import { h, replace, setText } from '../dom';
import { DASH, dateTimeText, durationText, fmt } from '../format';
import type { BatteryReport } from '../types';
import { chartBox, drawLine, emptyState, errorText } from './session-parts';
import type { Panel, VehicleContext } from './vehicle';

function figure(testid: string, label: string, value: string, note: string): HTMLElement {
  return h('div', { class: 'card figure', 'data-testid': testid }, h('div', { class: 'figure-label' }, label), h('div', { class: 'figure-value' }, value), h('div', { class: 'muted small' }, note));
}

export function batteryPanel(ctx: VehicleContext): Panel {
  const status = h('p', { class: 'muted', role: 'status', 'data-testid': 'battery-status' }, 'Loading…');
  const errorBox = h('p', { class: 'error', role: 'alert', hidden: true });
  const figures = h('div', { class: 'figures' });
  const capacity = chartBox('chart-capacity', 'Capacity estimate per charge (kWh)', 'No charge has added 10 SOC points or more yet.');
  const soh = chartBox('chart-soh', 'State of health reported by the car (%)', 'The car has not reported its SOH.');
  const drainBody = h('tbody', {});
  const drain = h(
    'table',
    { class: 'sessions responsive', 'data-testid': 'drain' },
    h('caption', { class: 'visually-hidden' }, 'Vampire drain'),
    h('thead', {}, h('tr', {}, ...['Parked from', 'Parked for', 'SOC lost', 'Per day'].map((c) => h('th', { scope: 'col' }, c)))),
    drainBody,
  );
  const empty = emptyState(
    'battery-empty',
    'No battery figures yet.',
    'The capacity is estimated from each charge that adds 10 SOC points or more, and the drain from the SOC lost while parked between drives and charges.',
  );
  empty.hidden = true;
  // all of it hidden while there is nothing to show but the empty state
  const content = h('div', {}, figures, h('div', { class: 'charts' }, capacity.figure, soh.figure), h('div', { class: 'card' }, h('h2', {}, 'Vampire drain: SOC lost while parked'), drain));
  const el = h('div', { class: 'panel battery' }, status, errorBox, empty, content);
  let alive = true;
  let loaded = false;

  function show(b: BatteryReport): void {
    const c = b.capacity ?? { estimate: null, max: null, degradation: null };
    const drainPerDay = b.vampireDrain?.perDay ?? null;
    replace(
      figures,
      figure('battery-estimate', 'Capacity now', fmt(c.estimate, 'kWh', 1), 'median of the recent charges'),
      figure('battery-max', 'Highest seen', fmt(c.max, 'kWh', 1), 'the best estimate so far'),
      figure('battery-degradation', 'Degradation', fmt(c.degradation, '%', 1), 'now against the highest seen'),
      figure('battery-drain', 'Vampire drain', drainPerDay === null ? DASH : `${fmt(drainPerDay, '%', 2)} / day`, 'SOC lost per day while parked'),
    );
    const samples = b.samples ?? [];
    const sohs = b.soh ?? [];
    const times = [...samples.map((s) => s.t), ...sohs.map((s) => s[0])];
    const from = times.length ? Math.min(...times) : Date.now() / 1000 - 86400 * 30;
    const to = Math.max(times.length ? Math.max(...times) : Date.now() / 1000, from + 86400);
    drawLine(capacity, { from, to, left: 'kWh', series: [{ label: 'Capacity', points: samples.map((s) => [s.t, s.capacity]), color: '#0b66c3', dots: true }] });
    drawLine(soh, { from, to, left: '%', series: [{ label: 'SOH', points: sohs, color: '#2e9e5b', maxGap: Number.POSITIVE_INFINITY }] });
    const drains = [...(b.vampireDrain?.samples ?? [])].sort((x, y) => y.start - x.start).slice(0, 30);
    replace(
      drainBody,
      ...(drains.length
        ? drains.map((d) =>
            h(
              'tr',
              { 'data-testid': 'drain-row' },
              h('td', { 'data-label': 'Parked from' }, dateTimeText(d.start)),
              h('td', { 'data-label': 'Parked for' }, durationText(d.end - d.start)),
              h('td', { 'data-label': 'SOC lost', class: 'num' }, fmt(d.socLost, '%', 1)),
              h('td', { 'data-label': 'Per day', class: 'num' }, fmt(d.perDay, '%', 2)),
            ),
          )
        : [h('tr', {}, h('td', { colspan: 4, class: 'muted empty-cell' }, 'No parked stretch long enough to measure yet.'))]),
    );
    empty.hidden = !(samples.length === 0 && sohs.length === 0 && drains.length === 0 && c.estimate === null);
    content.hidden = !empty.hidden;
    setText(status, `${samples.length} capacity estimate${samples.length === 1 ? '' : 's'} · ${sohs.length} SOH value${sohs.length === 1 ? '' : 's'}`);
  }

  async function load(): Promise<void> {
    try {
      const b = await battery(ctx.id);
      if (alive) show(b);
    } catch (err) {
      if (!alive) return;
      setText(status, '');
      setText(errorBox, `The battery figures could not be loaded: ${errorText(err)}`);
      errorBox.hidden = false;
      if (err instanceof ApiError && err.status === 403) ctx.refused();
    }
  }

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
      capacity.chart?.destroy();
      soh.chart?.destroy();
    },
  };
}
