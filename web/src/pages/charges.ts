/**
 * Vehicle / Charges: the charges of a period (`GET /api/charges/<id>?from&to`) with their cost and
 * a CSV download, and a charge's own page (charge.ts) when the route names one.
 */
import { ApiError, charges, chargesCsvUrl } from '../api';
import { h, on, replace, setText } from '../dom';
import { DASH, dateTimeText, durationText, fmt } from '../format';
import { go, href } from '../router';
import type { Charge } from '../types';
import { chargePage } from './charge';
import { emptyState, errorText, listHead, money, periodFilter, placeText, socText } from './session-parts';
import type { Panel, VehicleContext } from './vehicle';

const COLUMNS = ['Date', 'Place', 'Kind', 'Added / from grid', 'Max power', 'SOC', 'Duration', 'Cost', 'Source'];

export const SOURCE_TEXT: Record<Charge['source'], string> = {
  live: 'live data',
  log: 'the car’s grid log',
  inferred: 'inferred (SOC rose while offline)',
};

export function kindText(kind: Charge['kind']): string {
  return kind === 'dc' ? 'DC' : kind === 'ac' ? 'AC' : DASH;
}

export function energyText(c: Charge): string {
  return c.energyFromGrid === null ? fmt(c.energyAdded, 'kWh', 2) : `${fmt(c.energyAdded, '', 2)} / ${fmt(c.energyFromGrid, 'kWh', 2)}`;
}

function chargeRow(ctx: VehicleContext, c: Charge): HTMLTableRowElement {
  const link = href({ name: 'vehicle', id: ctx.id, tab: 'charges', item: c.id });
  const tr = h(
    'tr',
    { class: 'clickable', 'data-testid': 'charge-row', 'data-id': c.id, 'data-kind': c.kind ?? '' },
    h('td', { 'data-label': 'Date' }, h('a', { href: link }, dateTimeText(c.start)), c.end === null ? h('span', { class: 'badge live-badge' }, 'charging') : ''),
    h('td', { 'data-label': 'Place' }, placeText(c.at)),
    h('td', { 'data-label': 'Kind' }, h('span', { class: `badge kind-${c.kind ?? 'none'}` }, kindText(c.kind))),
    h('td', { 'data-label': 'Added / grid', class: 'num' }, energyText(c)),
    h('td', { 'data-label': 'Max power', class: 'num' }, fmt(c.maxPower, 'kW', 1)),
    h('td', { 'data-label': 'SOC' }, socText(c.socStart, c.socEnd)),
    h('td', { 'data-label': 'Duration', class: 'num' }, c.duration === null ? DASH : durationText(c.duration)),
    h('td', { 'data-label': 'Cost', class: 'num', 'data-testid': 'charge-cost' }, money(c.cost, c.currency)),
    h('td', { 'data-label': 'Source' }, h('span', { class: 'muted small' }, SOURCE_TEXT[c.source] ?? c.source)),
  );
  on(tr, {
    click: (ev) => {
      if ((ev.target as Element).closest('a')) return;
      go({ name: 'vehicle', id: ctx.id, tab: 'charges', item: c.id });
    },
  });
  return tr;
}

/** "€12.40 + $3.10": the total of each currency. */
function totals(list: Charge[]): string {
  const by = new Map<string, number>();
  for (const c of list) if (c.cost !== null) by.set(c.currency ?? '', (by.get(c.currency ?? '') ?? 0) + c.cost);
  return [...by].map(([cur, v]) => money(v, cur)).join(' + ');
}

export function chargesPanel(ctx: VehicleContext): Panel {
  const status = h('p', { class: 'muted', role: 'status', 'data-testid': 'charges-status' });
  const errorBox = h('p', { class: 'error', role: 'alert', hidden: true });
  const csv = h('a', { class: 'button-link secondary', 'data-testid': 'charges-csv', download: 'charges.csv' }, 'Download CSV');
  const filter = periodFilter('charges', () => void load());
  const tbody = h('tbody', {});
  const table = h(
    'table',
    { class: 'sessions responsive', 'data-testid': 'charges' },
    h('caption', { class: 'visually-hidden' }, 'Charges'),
    h('thead', {}, h('tr', {}, ...COLUMNS.map((c) => h('th', { scope: 'col' }, c)))),
    tbody,
  );
  const empty = emptyState(
    'charges-empty',
    'No charges in this period.',
    'A charge is recorded from the moment the car reports “charging” until it is done or stopped; set a place with a tariff under ',
    h('a', { href: href({ name: 'places' }) }, 'Places'),
    ' to see what each one cost. ',
    h('code', {}, 'vts module --simulate day'),
    ' fills a demo day.',
  );
  const listView = h('div', {}, filter.el, h('div', { class: 'card' }, listHead('Charges', status, csv), errorBox, table), empty);
  const detailView = h('div', {});
  const el = h('div', { class: 'panel charges' }, listView, detailView);
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
    csv.href = chargesCsvUrl(ctx.id, r.from, r.to);
    const mine = ++request;
    setText(status, 'Loading…');
    try {
      const list = await charges(ctx.id, r.from, r.to);
      if (!alive || mine !== request) return;
      const rows = [...list].sort((a, b) => b.start - a.start);
      replace(tbody, ...rows.map((c) => chargeRow(ctx, c)));
      table.hidden = rows.length === 0;
      empty.hidden = rows.length !== 0;
      const kwh = rows.reduce((s, c) => s + (c.energyAdded ?? 0), 0);
      const cost = totals(rows);
      setText(status, `${rows.length} charge${rows.length === 1 ? '' : 's'} · ${fmt(kwh, 'kWh')} added${cost ? ` · ${cost}` : ''}`);
    } catch (err) {
      if (!alive || mine !== request) return;
      setText(status, '');
      setText(errorBox, `The charges could not be loaded: ${errorText(err)}`);
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
        const page = chargePage(ctx, item);
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
