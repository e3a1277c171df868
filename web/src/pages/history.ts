/**
 * Vehicle / History: charts of SOC and ranges, power and temperatures over a chosen period, and
 * the trips, from `GET /api/history/<id>?from=&to=`. A period "Last …" is what is fetched; the
 * charts' time axis spans the values found in it (time-axis.ts fitSpan), so that a car that
 * reported for an hour fills the chart instead of a sliver at its right edge. A custom period is
 * shown as chosen.
 */
import type { Chart } from 'chart.js';
import { ApiError, history } from '../api';
import { hasData, lineChart, type ChartSpec } from '../charts';
import { field, h, on, replace, setText } from '../dom';
import { DASH, dateTimeText, distanceUnit, durationText, fmt, localInputValue } from '../format';
import { extent, fitSpan } from '../time-axis';
import type { HistoryBody, Trip } from '../types';
import type { Panel, VehicleContext } from './vehicle';

const PERIODS: { value: string; label: string; seconds: number }[] = [
  { value: '6h', label: 'Last 6 hours', seconds: 6 * 3600 },
  { value: '24h', label: 'Last 24 hours', seconds: 24 * 3600 },
  { value: '7d', label: 'Last 7 days', seconds: 7 * 86400 },
];

interface ChartBox {
  figure: HTMLElement;
  area: HTMLElement;
  canvas: HTMLCanvasElement;
  empty: HTMLElement;
  chart: Chart | null;
}

function chartBox(testid: string, title: string): ChartBox {
  const canvas = h('canvas', { role: 'img', 'aria-label': title });
  const empty = h('p', { class: 'muted empty-chart', hidden: true }, 'No data in this period.');
  const area = h('div', { class: 'chart-area' }, canvas);
  const figure = h('figure', { class: 'card chart', 'data-testid': testid }, h('figcaption', {}, title), area, empty);
  return { figure, area, canvas, empty, chart: null };
}

function tripRow(t: Trip, unit: string): HTMLTableRowElement {
  const soc = t.socStart === null && t.socEnd === null ? DASH : `${fmt(t.socStart, '%')} → ${fmt(t.socEnd, '%')}`;
  return h(
    'tr',
    { class: 'trip', 'data-testid': 'trip', 'data-distance': t.distance ?? '' },
    h('td', { 'data-label': 'Start' }, dateTimeText(t.start)),
    h('td', { 'data-label': 'End' }, dateTimeText(t.end)),
    h('td', { 'data-label': 'Duration' }, durationText(t.end - t.start)),
    // the server never sends a negative distance (docs/web-api.md "Trips"); an older one might
    h('td', { 'data-label': 'Distance', class: 'num' }, t.distance !== null && t.distance >= 0 ? fmt(t.distance, unit) : DASH),
    h('td', { 'data-label': 'SOC' }, soc),
  );
}

export function historyPanel(ctx: VehicleContext): Panel {
  const period = h(
    'select',
    { 'data-testid': 'history-period', name: 'period' },
    ...PERIODS.map((p) => h('option', { value: p.value, selected: p.value === '24h' }, p.label)),
    h('option', { value: 'custom' }, 'Custom…'),
  );
  const fromInput = h('input', { type: 'datetime-local', name: 'from' });
  const toInput = h('input', { type: 'datetime-local', name: 'to' });
  const apply = h('button', { type: 'submit' }, 'Show');
  const custom = h('div', { class: 'custom-range', hidden: true }, field('From', fromInput), field('To', toInput), apply);
  const reload = h('button', { type: 'button', class: 'secondary' }, 'Reload');
  const form = h('form', { class: 'toolbar' }, field('Period', period), custom, reload);
  const statusLine = h('p', { class: 'muted', role: 'status', 'data-testid': 'history-status' });
  const errorBox = h('p', { class: 'error', role: 'alert', hidden: true });

  const socChart = chartBox('chart-soc', 'State of charge and range');
  const powerChart = chartBox('chart-power', 'Power (kW, positive = drawn from the battery)');
  const tempChart = chartBox('chart-temps', 'Temperatures (°C)');
  const boxes = [socChart, powerChart, tempChart];

  const tripsBody = h('tbody', {});
  const trips = h(
    'table',
    { class: 'trips responsive', 'data-testid': 'trips' },
    h('caption', {}, 'Trips'),
    h(
      'thead',
      {},
      h('tr', {}, ...['Start', 'End', 'Duration', 'Distance', 'SOC'].map((c) => h('th', { scope: 'col' }, c))),
    ),
    tripsBody,
  );

  const el = h(
    'div',
    { class: 'panel history' },
    form,
    statusLine,
    errorBox,
    h('div', { class: 'charts' }, ...boxes.map((b) => b.figure)),
    h('div', { class: 'card' }, trips),
  );

  let alive = true;
  let request = 0;
  let loaded = false;

  /** The period to fetch; `fit`: the charts span the values in it rather than all of it. */
  function range(): { from: number; to: number; fit: string | null } | string {
    const now = Math.floor(Date.now() / 1000);
    const p = PERIODS.find((x) => x.value === period.value);
    if (p) return { from: now - p.seconds, to: now, fit: p.label };
    const from = Date.parse(fromInput.value);
    const to = toInput.value ? Date.parse(toInput.value) : Date.now();
    if (Number.isNaN(from)) return 'Choose the start of the period.';
    if (Number.isNaN(to) || to <= from) return 'The end of the period must come after its start.';
    return { from: Math.floor(from / 1000), to: Math.floor(to / 1000), fit: null };
  }

  function draw(box: ChartBox, spec: ChartSpec): void {
    box.chart?.destroy();
    box.chart = null;
    const any = hasData(spec);
    box.empty.hidden = any;
    box.area.hidden = !any;
    if (any) box.chart = lineChart(box.canvas, spec);
  }

  function show(body: HistoryBody, fit: string | null): void {
    const s = body.series ?? {};
    const list = body.trips ?? [];
    const unit = distanceUnit(body.units);
    const { first, last } = extent([...Object.values(s), list.map((t) => [t.start]), list.map((t) => [t.end])]);
    const span = fit === null ? { from: body.from, to: body.to } : fitSpan({ from: body.from, to: body.to }, first, last);
    draw(socChart, {
      ...span,
      left: 'SOC (%)',
      right: `Range (${unit})`,
      series: [
        { label: 'SOC', points: s.soc, color: '#0b66c3' },
        { label: 'Estimated range', points: s.range, color: '#2e9e5b', right: true },
        { label: 'Ideal range', points: s.idealRange, color: '#9bc53d', right: true },
      ],
    });
    draw(powerChart, { ...span, left: 'kW', series: [{ label: 'Power', points: s.power, color: '#d9480f' }] });
    draw(tempChart, {
      ...span,
      left: '°C',
      series: [
        { label: 'Battery', points: s.tempBattery, color: '#0b66c3' },
        { label: 'Outside', points: s.tempAmbient, color: '#2e9e5b' },
        { label: 'Motor', points: s.tempMotor, color: '#d9480f' },
        { label: 'Inverter', points: s.tempPem, color: '#7048e8' },
        { label: 'Cabin', points: s.tempCabin, color: '#f59f00' },
      ],
    });
    replace(
      tripsBody,
      ...(list.length
        ? list.map((t) => tripRow(t, unit))
        : [h('tr', {}, h('td', { colspan: 5, class: 'muted' }, 'No trips in this period.'))]),
    );
    const points = Object.values(s).reduce((n, p) => n + (p?.length ?? 0), 0);
    const trips = `${list.length} trip${list.length === 1 ? '' : 's'}`;
    const values = `${points} value${points === 1 ? '' : 's'}`;
    setText(
      statusLine,
      fit !== null && first !== null && last !== null
        ? `${fit}: ${values} from ${dateTimeText(first)} to ${dateTimeText(last)} · ${trips}`
        : `${dateTimeText(body.from)} – ${dateTimeText(body.to)} · ${values} · ${trips}`,
    );
  }

  async function load(): Promise<void> {
    const r = range();
    errorBox.hidden = true;
    if (typeof r === 'string') {
      setText(errorBox, r);
      errorBox.hidden = false;
      return;
    }
    const mine = ++request;
    setText(statusLine, 'Loading…');
    el.setAttribute('aria-busy', 'true');
    try {
      const body = await history(ctx.id, r.from, r.to);
      if (!alive || mine !== request) return;
      show(body, r.fit);
    } catch (err) {
      if (!alive || mine !== request) return;
      if (err instanceof ApiError && err.status === 403) ctx.refused();
      setText(statusLine, '');
      setText(errorBox, `The history could not be loaded: ${err instanceof ApiError ? err.message : String(err)}`);
      errorBox.hidden = false;
    } finally {
      if (mine === request) el.removeAttribute('aria-busy');
    }
  }

  on(period, {
    change: () => {
      const isCustom = period.value === 'custom';
      custom.hidden = !isCustom;
      if (isCustom) {
        const now = Date.now() / 1000;
        if (!fromInput.value) fromInput.value = localInputValue(now - 86400);
        if (!toInput.value) toInput.value = localInputValue(now);
        fromInput.focus();
      } else {
        void load();
      }
    },
  });
  on(form, {
    submit: (ev) => {
      ev.preventDefault();
      void load();
    },
  });
  on(reload, { click: () => void load() });

  return {
    el,
    shown() {
      // loaded the first time the tab is opened (a canvas must be visible to be measured)
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
