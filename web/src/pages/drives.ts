/**
 * Vehicle / Drives: the drives of a period (`GET /api/drives/<id>?from&to`) with a CSV download,
 * and a drive's own page (`#/vehicle/<id>/drives/<n>`, drive.ts) when the route names one.
 */
import { ApiError, drives, drivesCsvUrl } from '../api';
import { h, on, replace, setText } from '../dom';
import { DASH, dateTimeText, distanceUnit, durationText, fmt } from '../format';
import { go, href } from '../router';
import type { Drive } from '../types';
import { drivePage } from './drive';
import { emptyState, errorText, listHead, periodFilter, placeText, socText } from './session-parts';
import type { Panel, VehicleContext } from './vehicle';

const COLUMNS = ['Date', 'Route', 'Distance', 'Duration', 'Energy', 'Efficiency', 'SOC'];

function cell(label: string, ...content: (Node | string)[]): HTMLTableCellElement {
  return h('td', { 'data-label': label }, h('div', { class: 'cell' }, ...content));
}

function driveRow(ctx: VehicleContext, d: Drive): HTMLTableRowElement {
  const unit = distanceUnit(d.units);
  const link = href({ name: 'vehicle', id: ctx.id, tab: 'drives', item: d.id });
  const tr = h(
    'tr',
    { class: 'clickable', 'data-testid': 'drive-row', 'data-id': d.id },
    cell('Date', h('a', { href: link }, dateTimeText(d.start)), d.end === null ? h('span', { class: 'badge live-badge' }, 'driving') : ''),
    cell('Route', h('span', { class: 'route' }, placeText(d.from), h('span', { class: 'arrow', 'aria-label': 'to' }, ' → '), placeText(d.to))),
    h('td', { 'data-label': 'Distance', class: 'num' }, fmt(d.distance, unit)),
    h('td', { 'data-label': 'Duration', class: 'num' }, d.duration === null ? DASH : durationText(d.duration)),
    h('td', { 'data-label': 'Energy', class: 'num' }, fmt(d.energyUsed, 'kWh', 2)),
    h('td', { 'data-label': 'Efficiency', class: 'num' }, fmt(d.efficiency, `Wh/${unit}`, 0)),
    h('td', { 'data-label': 'SOC' }, socText(d.socStart, d.socEnd)),
  );
  on(tr, {
    click: (ev) => {
      if ((ev.target as Element).closest('a')) return;
      go({ name: 'vehicle', id: ctx.id, tab: 'drives', item: d.id });
    },
  });
  return tr;
}

export function drivesPanel(ctx: VehicleContext): Panel {
  const status = h('p', { class: 'muted', role: 'status', 'data-testid': 'drives-status' });
  const errorBox = h('p', { class: 'error', role: 'alert', hidden: true });
  const csv = h('a', { class: 'button-link secondary', 'data-testid': 'drives-csv', download: 'drives.csv' }, 'Download CSV');
  const filter = periodFilter('drives', () => void load());
  const tbody = h('tbody', {});
  const table = h(
    'table',
    { class: 'sessions responsive', 'data-testid': 'drives' },
    h('caption', { class: 'visually-hidden' }, 'Drives'),
    h('thead', {}, h('tr', {}, ...COLUMNS.map((c) => h('th', { scope: 'col' }, c)))),
    tbody,
  );
  const empty = emptyState(
    'drives-empty',
    'No drives in this period.',
    'Drives appear when the car’s ignition goes on and off (or the firmware’s trip log arrives); ',
    h('code', {}, 'vts module --simulate day'),
    ' fills a demo day.',
  );
  const listView = h('div', { class: 'stack-list' }, filter.el, h('div', { class: 'card' }, listHead('Drives', status, csv), errorBox, table), empty);
  const detailView = h('div', {});
  const el = h('div', { class: 'panel drives' }, listView, detailView);
  let alive = true;
  let request = 0;
  let loaded = false;
  let detail: { destroy(): void } | null = null;

  async function load(): Promise<void> {
    const r = filter.range();
    errorBox.hidden = true;
    if (typeof r === 'string') {
      setText(errorBox, r);
      errorBox.hidden = false;
      return;
    }
    csv.href = drivesCsvUrl(ctx.id, r.from, r.to);
    const mine = ++request;
    setText(status, 'Loading…');
    try {
      const list = await drives(ctx.id, r.from, r.to);
      if (!alive || mine !== request) return;
      const rows = [...list].sort((a, b) => b.start - a.start);
      replace(tbody, ...rows.map((d) => driveRow(ctx, d)));
      table.hidden = rows.length === 0;
      empty.hidden = rows.length !== 0;
      const unit = distanceUnit(rows[0]?.units);
      const km = rows.reduce((s, d) => s + (d.distance ?? 0), 0);
      const kwh = rows.reduce((s, d) => s + (d.energyUsed ?? 0), 0);
      setText(status, `${rows.length} drive${rows.length === 1 ? '' : 's'} · ${fmt(km, unit)} · ${fmt(kwh, 'kWh')}`);
    } catch (err) {
      if (!alive || mine !== request) return;
      setText(status, '');
      setText(errorBox, `The drives could not be loaded: ${errorText(err)}`);
      errorBox.hidden = false;
      if (err instanceof ApiError && err.status === 403) ctx.refused();
    }
  }

  return {
    el,
    shown(item) {
      detail?.destroy();
      detail = null;
      listView.hidden = item !== undefined;
      detailView.hidden = item === undefined;
      if (item !== undefined) {
        const page = drivePage(ctx, item);
        detail = page;
        replace(detailView, page.el);
        return;
      }
      if (!loaded) {
        loaded = true;
        void load();
      }
    },
    destroy() {
      alive = false;
      detail?.destroy();
    },
  };
}
