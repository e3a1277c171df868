/**
 * What the Drives, Charges, Battery and Stats tabs share: a period filter, chart boxes, the
 * formatting of money, places and SOC, and empty states that say how data comes.
 */
import type { Chart } from 'chart.js';
import { ApiError } from '../api';
import { hasData, lineChart, type ChartSpec } from '../charts';
import { field, h, on } from '../dom';
import { DASH, fmt } from '../format';
import type { SessionPoint } from '../types';

export interface ChartBox {
  figure: HTMLElement;
  area: HTMLElement;
  canvas: HTMLCanvasElement;
  empty: HTMLElement;
  chart: Chart | null;
}

export function chartBox(testid: string, title: string, emptyText = 'No data in this period.'): ChartBox {
  const canvas = h('canvas', { role: 'img', 'aria-label': title });
  const empty = h('p', { class: 'muted empty-chart', hidden: true }, emptyText);
  const area = h('div', { class: 'chart-area' }, canvas);
  const figure = h('figure', { class: 'card chart', 'data-testid': testid }, h('figcaption', {}, title), area, empty);
  return { figure, area, canvas, empty, chart: null };
}

/** Draws a line chart in the box, or its empty note when no series has a value. */
export function drawLine(box: ChartBox, spec: ChartSpec): void {
  box.chart?.destroy();
  box.chart = null;
  const any = hasData(spec);
  box.empty.hidden = any;
  box.area.hidden = !any;
  if (any) box.chart = lineChart(box.canvas, spec);
}

/** An amount in its currency (`€4.20`), the number and the code when the code is not one. */
export function money(v: number | null | undefined, currency: string | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return DASH;
  if (!currency) return fmt(v, '', 2);
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(v);
  } catch {
    return fmt(v, currency, 2);
  }
}

/** The place's name, else the coordinates, else a dash. */
export function placeText(p: SessionPoint | null | undefined): string {
  if (!p) return DASH;
  if (p.place) return p.place;
  return Number.isFinite(p.lat) && Number.isFinite(p.lon) ? `${p.lat.toFixed(4)}, ${p.lon.toFixed(4)}` : DASH;
}

export function socText(a: number | null, b: number | null): string {
  return a === null && b === null ? DASH : `${fmt(a, '%', 0)} → ${fmt(b, '%', 0)}`;
}

/** An empty state: what is missing, and a sentence on how it comes. */
export function emptyState(testid: string, what: string, ...how: (string | Node)[]): HTMLElement {
  return h('div', { class: 'card empty', 'data-testid': testid }, h('p', {}, what), h('p', { class: 'muted' }, ...how));
}

export function errorText(err: unknown): string {
  return err instanceof ApiError ? err.message : String(err);
}

const DAY = 86400;
const PRESETS: { value: string; label: string; days: number }[] = [
  { value: '7d', label: 'Last 7 days', days: 7 },
  { value: '30d', label: 'Last 30 days', days: 30 },
  { value: '90d', label: 'Last 90 days', days: 90 },
  { value: '365d', label: 'Last 12 months', days: 365 },
];

export interface PeriodFilter {
  el: HTMLFormElement;
  /** the chosen period (epoch s), or a sentence saying what is wrong with it */
  range(): { from: number; to: number } | string;
}

function dateValue(epoch: number): string {
  const d = new Date(epoch * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** Presets (last 7 / 30 / 90 days, 12 months) and a from/to of whole local days; `extra`: more controls. */
export function periodFilter(testid: string, onChange: () => void, ...extra: HTMLElement[]): PeriodFilter {
  const preset = h(
    'select',
    { 'data-testid': `${testid}-period`, name: 'period' },
    ...PRESETS.map((p) => h('option', { value: p.value, selected: p.value === '30d' }, p.label)),
    h('option', { value: 'custom' }, 'From … to …'),
  );
  const fromInput = h('input', { type: 'date', name: 'from', 'data-testid': `${testid}-from` });
  const toInput = h('input', { type: 'date', name: 'to', 'data-testid': `${testid}-to` });
  const custom = h('div', { class: 'custom-range', hidden: true }, field('From', fromInput), field('To', toInput), h('button', { type: 'submit' }, 'Show'));
  const el = h('form', { class: 'toolbar' }, field('Period', preset), custom, ...extra);
  on(preset, {
    change: () => {
      custom.hidden = preset.value !== 'custom';
      if (preset.value === 'custom') {
        const now = Date.now() / 1000;
        if (!fromInput.value) fromInput.value = dateValue(now - 30 * DAY);
        if (!toInput.value) toInput.value = dateValue(now);
        fromInput.focus();
      } else onChange();
    },
  });
  on(el, {
    submit: (ev) => {
      ev.preventDefault();
      onChange();
    },
  });
  return {
    el,
    range() {
      const now = Math.floor(Date.now() / 1000);
      const p = PRESETS.find((x) => x.value === preset.value);
      if (p) return { from: now - p.days * DAY, to: now };
      // local midnights: the "to" day is included whole
      const from = fromInput.value ? new Date(`${fromInput.value}T00:00`).getTime() / 1000 : Number.NaN;
      const to = toInput.value ? new Date(`${toInput.value}T00:00`).getTime() / 1000 + DAY : now;
      if (Number.isNaN(from)) return 'Choose the first day of the period.';
      if (Number.isNaN(to) || to <= from) return 'The last day of the period must not come before its first.';
      return { from, to };
    },
  };
}

/** A list's header: a heading, a status line and links/buttons on the right. */
export function listHead(title: string, status: HTMLElement, ...actions: HTMLElement[]): HTMLElement {
  return h('div', { class: 'list-head' }, h('h2', {}, title), status, h('div', { class: 'list-actions' }, ...actions));
}
