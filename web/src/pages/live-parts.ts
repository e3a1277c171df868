/** The pieces of the Live tab (web/src/pages/live.ts): cards, key-value lists, tyres, notifications. */
import { h, type Child } from '../dom';
import { DASH, dateTimeText, durationText, epochOf, fmt, num, str } from '../format';
import type { LiveNotification, V2Body } from '../types';

export interface Row {
  label: string;
  value: string;
  /** shown even without a value */
  always?: boolean;
  cls?: string;
}

export function dl(rows: Row[]): HTMLDListElement {
  const list = h('dl', { class: 'kv' });
  for (const r of rows) {
    if (!r.always && r.value === DASH) continue;
    list.append(h('dt', {}, r.label), h('dd', r.cls ? { class: r.cls } : {}, r.value));
  }
  return list;
}

export function card(title: string, cls: string, ...children: Child[]): HTMLElement {
  return h('section', { class: `card ${cls}`, 'aria-label': title }, h('h2', {}, title), ...children);
}

/** A bit field of the status body (numbers equal to the mask, or 0); null without a D record. */
export function bit(b: V2Body, key: string): boolean | null {
  const v = b[key];
  return typeof v === 'number' ? v !== 0 : null;
}

export function yesNo(v: boolean | null, yes: string, no: string): string {
  return v === null ? DASH : v ? yes : no;
}

/** A tenth of a unit (odometer, trip meter, charged energy) as a number. */
export function tenths(v: unknown): number | null {
  const n = num(v);
  return n === null ? null : n / 10;
}

export const celsius = (v: unknown) => fmt(v, '°C');
export const minutes = (v: unknown) => {
  const n = num(v);
  return n === null || n <= 0 ? DASH : durationText(n * 60);
};

function wheelOrder(a: string, b: string): number {
  const order = ['fl', 'fr', 'rl', 'rr'];
  const ia = order.indexOf(a);
  const ib = order.indexOf(b);
  return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
}

export function tpmsGrid(b: V2Body): HTMLElement {
  const wheels = Object.keys(b)
    .map((k) => /^(.+)_pressure$/.exec(k)?.[1])
    .filter((w): w is string => w !== undefined && w !== 'stale')
    .sort(wheelOrder);
  if (wheels.length === 0) return h('p', { class: 'muted' }, 'No tyre pressures reported.');
  const grid = h('div', { class: 'tpms' });
  for (const w of wheels) {
    const kpa = b[`${w}_pressure_kpa`];
    // a Y record gives kPa (and psi as a number); a W record psi as sent
    const pressure = kpa !== undefined ? fmt(kpa, 'kPa') : fmt(b[`${w}_pressure`], 'psi');
    const alert = num(b[`${w}_alert`]);
    grid.append(
      h(
        'div',
        { class: `wheel${alert !== null && alert > 0 ? ' warn' : ''}`, 'data-wheel': w },
        h('strong', {}, w.toUpperCase()),
        h('span', { class: 'pressure' }, pressure),
        h('span', { class: 'muted' }, celsius(b[`${w}_temperature`])),
        b[`${w}_health`] !== undefined ? h('span', { class: 'muted' }, `health ${fmt(b[`${w}_health`], '%', 0)}`) : null,
      ),
    );
  }
  const stale = str(b.staletpms);
  return h('div', {}, grid, stale === '0' ? h('p', { class: 'muted' }, 'The values are stale.') : null);
}

export function notificationItem(n: LiveNotification): HTMLLIElement {
  const kind = n.type === 'A' ? 'alert' : n.type === 'E' ? 'error' : 'info';
  const t = epochOf(n.time);
  return h(
    'li',
    { class: `notification ${kind}` },
    h('span', { class: 'badge' }, kind),
    h('time', t === null ? {} : { datetime: new Date(t * 1000).toISOString() }, t === null ? '' : dateTimeText(t, true)),
    h('span', { class: 'text' }, n.text),
  );
}

