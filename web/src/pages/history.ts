/**
 * Vehicle / History: charts of SOC and ranges, power and temperatures over a chosen period, from
 * `GET /api/history/<id>?from=&to=` (the drives are on the Drives tab). A period "Last …" is what
 * is fetched; the charts' time axis spans the values found in it (time-axis.ts fitSpan), so that a
 * car that reported for an hour fills the chart instead of a sliver at its right edge. A custom
 * period is shown as chosen. The periods offered end at 30 days: the raw history the server keeps
 * by default. The lines break where the car sent nothing (gaps.ts).
 */
import { ApiError, history } from '../api';
import { field, h, on, setText } from '../dom';
import { dateTimeText, distanceUnit, localInputValue } from '../format';
import { extent, fitSpan } from '../time-axis';
import type { HistoryBody } from '../types';
import { chartBox, drawLine as draw } from './session-parts';
import type { Panel, VehicleContext } from './vehicle';

/** The raw history the server keeps by default (days): the longest period offered. */
export const KEPT_DAYS = 30;

const PERIODS: { value: string; label: string; seconds: number }[] = [
  { value: '6h', label: 'Last 6 hours', seconds: 6 * 3600 },
  { value: '24h', label: 'Last 24 hours', seconds: 24 * 3600 },
  { value: '7d', label: 'Last 7 days', seconds: 7 * 86400 },
  { value: '30d', label: 'Last 30 days', seconds: KEPT_DAYS * 86400 },
];

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


  const el = h(
    'div',
    { class: 'panel history' },
    form,
    statusLine,
    errorBox,
    h('div', { class: 'charts' }, ...boxes.map((b) => b.figure)),
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
    if (from < Date.now() - KEPT_DAYS * 86400_000) return `The server keeps the last ${KEPT_DAYS} days of history: choose a start within them.`;
    return { from: Math.floor(from / 1000), to: Math.floor(to / 1000), fit: null };
  }


  function show(body: HistoryBody, fit: string | null): void {
    const s = body.series ?? {};
    const unit = distanceUnit(body.units);
    const { first, last } = extent(Object.values(s));
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
    const points = Object.values(s).reduce((n, p) => n + (p?.length ?? 0), 0);
    const values = `${points} value${points === 1 ? '' : 's'}`;
    setText(
      statusLine,
      fit !== null && first !== null && last !== null
        ? `${fit}: ${values} from ${dateTimeText(first)} to ${dateTimeText(last)}`
        : `${dateTimeText(body.from)} – ${dateTimeText(body.to)} · ${values}`,
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
        fromInput.min = localInputValue(now - KEPT_DAYS * 86400);
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
