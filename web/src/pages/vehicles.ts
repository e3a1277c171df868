/**
 * Vehicles: `GET /api/overview`, refreshed every 10 s; a row opens the vehicle. A vehicle shared
 * with the user is marked with its owner and access. Below: adding a vehicle, and each own
 * vehicle's settings and sharing (vehicle-settings.ts).
 */
import { ApiError, overview } from '../api';
import { h, on, replace, setText } from '../dom';
import { DASH, ageText, distanceUnit, fmt, linkLabel, linkTitle, timeText } from '../format';
import { go, href, type Page } from '../router';
import type { OverviewRow } from '../types';
import { addVehicleForm, vehicleSettings } from './vehicle-settings';

const REFRESH_MS = 10_000;

interface RowRefs {
  tr: HTMLTableRowElement;
  name: HTMLElement;
  shared: HTMLElement;
  link: HTMLElement;
  state: HTMLElement;
  apps: HTMLElement;
  age: HTMLElement;
  soc: HTMLElement;
  socMeter: HTMLMeterElement;
  range: HTMLElement;
  charge: HTMLElement;
}

const COLUMNS = ['Vehicle', 'Link', 'State', 'Apps', 'Last update', 'SOC', 'Range', 'Charge'] as const;

function cell(label: (typeof COLUMNS)[number], ...content: (Node | string)[]): HTMLTableCellElement {
  // data-label: the column name shown in the narrow (card) layout
  return h('td', { 'data-label': label }, h('div', { class: 'cell' }, ...content));
}

function makeRow(id: string): RowRefs {
  const name = h('span', { class: 'sub' });
  const shared = h('span', { class: 'sub shared-note', 'data-testid': 'row-shared', hidden: true });
  const link = h('span', { class: 'badge', 'data-testid': 'row-link' });
  const state = h('span', { 'data-testid': 'row-state' });
  const apps = h('span', {});
  const age = h('span', {});
  const soc = h('span', { class: 'soc-text', 'data-testid': 'row-soc' });
  const socMeter = h('meter', { min: 0, max: 100, low: 20, high: 80, optimum: 100, 'aria-hidden': 'true' });
  const range = h('span', {});
  const charge = h('span', {});
  const tr = h(
    'tr',
    { class: 'clickable', 'data-testid': 'vehicle-row', 'data-vehicle': id },
    cell('Vehicle', h('a', { href: href({ name: 'vehicle', id, tab: 'live' }), class: 'vehicle-id' }, id), name, shared),
    cell('Link', link),
    cell('State', state),
    cell('Apps', apps),
    cell('Last update', age),
    cell('SOC', soc, socMeter),
    cell('Range', range),
    cell('Charge', charge),
  );
  on(tr, {
    click: (ev) => {
      // the id is a real link (keyboard, middle click); the rest of the row is a convenience
      if ((ev.target as Element).closest('a')) return;
      go({ name: 'vehicle', id, tab: 'live' });
    },
  });
  return { tr, name, shared, link, state, apps, age, soc, socMeter, range, charge };
}

function fillRow(r: RowRefs, v: OverviewRow): void {
  setText(r.name, v.name && v.name !== v.id ? v.name : '');
  const sharedBy = v.access !== undefined && v.access !== 'owner';
  setText(r.shared, sharedBy ? `shared by ${v.owner ?? '?'} · ${v.access}` : '');
  r.shared.hidden = !sharedBy;
  r.tr.dataset.access = v.access ?? 'owner';
  setText(r.link, linkLabel(v.link, v.online));
  r.link.title = linkTitle(v.link, v.online);
  r.link.dataset.link = v.link ?? 'offline';
  setText(r.state, v.online ? 'online' : 'offline');
  r.state.className = v.online ? 'state online' : 'state offline';
  r.tr.dataset.online = String(v.online);
  setText(r.apps, String(v.apps));
  setText(r.age, ageText(v.age));
  r.age.title = v.lastUpdate === null ? 'Nothing received yet' : new Date(v.lastUpdate * 1000).toLocaleString();
  setText(r.soc, fmt(v.soc, '%'));
  r.soc.dataset.value = v.soc === null ? '' : String(v.soc);
  r.socMeter.value = v.soc ?? 0;
  r.socMeter.hidden = v.soc === null;
  const unit = distanceUnit(v.units);
  setText(r.range, v.range === null ? DASH : fmt(v.range, unit, 0) + (v.idealRange !== null ? ` (ideal ${fmt(v.idealRange, '', 0)})` : ''));
  setText(r.charge, v.chargeState ?? DASH);
  r.charge.className = v.charging ? 'charging' : '';
}

export function vehiclesPage(): Page {
  const status = h('p', { class: 'muted', role: 'status' }, 'Loading…');
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const tbody = h('tbody', {});
  const table = h(
    'table',
    { class: 'vehicles responsive' },
    h('caption', { class: 'visually-hidden' }, 'Your vehicles'),
    h('thead', {}, h('tr', {}, ...COLUMNS.map((c) => h('th', { scope: 'col' }, c)))),
    tbody,
  );
  table.hidden = true;
  const empty = h(
    'div',
    { class: 'empty', hidden: true },
    h('p', {}, 'No vehicles yet.'),
    h('p', { class: 'muted' }, 'Add one below with its id and the car password you give the module.'),
  );
  const manage = vehicleSettings(() => void refresh());
  const add = addVehicleForm(() => {
    void refresh();
    manage.reload();
  });
  const el = h('section', { class: 'page' }, h('div', { class: 'page-head' }, h('h1', {}, 'Vehicles'), status), error, table, empty, add, manage.el);

  const rows = new Map<string, RowRefs>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let alive = true;

  async function refresh(): Promise<void> {
    clearTimeout(timer);
    try {
      const list = await overview();
      if (!alive) return;
      error.hidden = true;
      const seen = new Set<string>();
      list.forEach((v, i) => {
        seen.add(v.id);
        let r = rows.get(v.id);
        if (!r) {
          r = makeRow(v.id);
          rows.set(v.id, r);
        }
        fillRow(r, v);
        if (tbody.children[i] !== r.tr) tbody.insertBefore(r.tr, tbody.children[i] ?? null);
      });
      for (const [id, r] of rows) {
        if (!seen.has(id)) {
          r.tr.remove();
          rows.delete(id);
        }
      }
      table.hidden = list.length === 0;
      empty.hidden = list.length !== 0;
      setText(status, `Updated ${timeText(Date.now() / 1000)} · refreshes every ${REFRESH_MS / 1000} s`);
    } catch (err) {
      if (!alive) return;
      replace(error, `The vehicles could not be loaded: ${err instanceof ApiError ? err.message : String(err)}`);
      error.hidden = false;
      setText(status, '');
    } finally {
      if (alive) timer = setTimeout(() => void refresh(), REFRESH_MS);
    }
  }

  void refresh();
  return {
    el,
    title: 'Vehicles',
    destroy() {
      alive = false;
      clearTimeout(timer);
    },
  };
}
