/**
 * Places (`GET|POST /api/places`, `PUT|DELETE /api/places/<id>`): the owner's places on a map, each
 * a circle of its radius; a form to add or edit one (a click on the map sets its centre) with its
 * tariff and time-of-use windows. The server names the field it refuses; the error is shown next
 * to that field. Creating or changing a place re-tags and re-prices the earlier drives and charges.
 */
import { ApiError, places as listPlaces, removePlace, savePlace, webConfig } from '../api';
import { h, on, replace, setText } from '../dom';
import { fmt } from '../format';
import { DrawingMap } from '../map';
import { fieldOf, type FieldName } from '../place-fields';
import type { Page } from '../router';
import type { Place, PlaceInput, TariffWindow } from '../types';
import { errorText, money } from './session-parts';


function tariffText(p: Place): string {
  const parts = [`${money(p.pricePerKwh, p.currency)}/kWh`];
  if (p.pricePerMinute) parts.push(`${money(p.pricePerMinute, p.currency)}/min`);
  if (p.sessionFee) parts.push(`${money(p.sessionFee, p.currency)} per charge`);
  const n = p.timeOfUse?.length ?? 0;
  if (n) parts.push(`${n} time-of-use window${n === 1 ? '' : 's'}`);
  return parts.join(' · ');
}

interface Input {
  el: HTMLInputElement;
  error: HTMLElement;
  wrap: HTMLElement;
}

function input(name: FieldName, label: string, attrs: Record<string, string | number | boolean>, hint?: string): Input {
  const el = h('input', { name, id: `place-${name}`, 'data-testid': `place-${name}`, ...attrs });
  const error = h('small', { class: 'field-error', role: 'alert', 'data-testid': `place-error-${name}`, hidden: true });
  el.setAttribute('aria-describedby', `place-${name}-error`);
  error.id = `place-${name}-error`;
  const wrap = h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), el, hint ? h('small', { class: 'hint' }, hint) : null, error);
  return { el, error, wrap };
}

export function placesPage(): Page {
  const status = h('p', { class: 'muted', role: 'status', 'data-testid': 'places-status' }, 'Loading…');
  const listError = h('p', { class: 'error', role: 'alert', hidden: true });
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const f = {
    name: input('name', 'Name', { type: 'text', maxlength: 100, required: true, placeholder: 'Home' }),
    lat: input('lat', 'Latitude', { type: 'number', step: 'any', min: -90, max: 90, required: true }),
    lon: input('lon', 'Longitude', { type: 'number', step: 'any', min: -180, max: 180, required: true }, 'Click the map to set both.'),
    radius: input('radius', 'Radius (m)', { type: 'number', step: 1, min: 10, max: 5000, value: 100, required: true }, '10 to 5,000 m'),
    timezone: input('timezone', 'Time zone', { type: 'text', value: zone, list: 'place-zones', required: true }, 'of the time-of-use windows'),
    currency: input('currency', 'Currency', { type: 'text', value: 'EUR', maxlength: 3, required: true, class: 'short' }, 'ISO code, e.g. EUR'),
    pricePerKwh: input('pricePerKwh', 'Price per kWh', { type: 'number', step: 'any', min: 0, value: 0 }),
    pricePerMinute: input('pricePerMinute', 'Price per minute', { type: 'number', step: 'any', min: 0, value: 0 }),
    sessionFee: input('sessionFee', 'Fee per charge', { type: 'number', step: 'any', min: 0, value: 0 }),
  } satisfies Partial<Record<FieldName, Input>>;
  const zones = h('datalist', { id: 'place-zones' }, ...(typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [zone]).map((z) => h('option', { value: z })));

  // time-of-use windows
  const touRows = h('div', { class: 'tou-rows', 'data-testid': 'tou-rows' });
  const touError = h('small', { class: 'field-error', role: 'alert', 'data-testid': 'place-error-timeOfUse', hidden: true });
  const addWindow = h('button', { type: 'button', class: 'secondary small', 'data-testid': 'tou-add' }, 'Add a window');
  function touRow(w?: TariffWindow): void {
    const from = h('input', { type: 'time', value: w?.from ?? '22:00', 'data-testid': 'tou-from', 'aria-label': 'From' });
    const to = h('input', { type: 'time', value: w?.to ?? '06:00', 'data-testid': 'tou-to', 'aria-label': 'To' });
    const price = h('input', { type: 'number', step: 'any', min: 0, value: w?.pricePerKwh ?? 0, 'data-testid': 'tou-price', 'aria-label': 'Price per kWh', class: 'short' });
    const remove = h('button', { type: 'button', class: 'danger small', 'data-testid': 'tou-remove', 'aria-label': 'Remove the window' }, '✕');
    const row = h('div', { class: 'tou-row' }, from, h('span', {}, 'to'), to, h('span', {}, 'at'), price, h('span', { class: 'muted' }, '/kWh'), remove);
    on(remove, { click: () => row.remove() });
    touRows.append(row);
  }
  on(addWindow, { click: () => touRow() });
  const tou = h(
    'fieldset',
    { class: 'tou' },
    h('legend', {}, 'Time-of-use windows'),
    h('p', { class: 'hint' }, 'A window’s price replaces the price per kWh between its times (a window may span midnight).'),
    touRows,
    addWindow,
    touError,
  );

  const heading = h('h2', { 'data-testid': 'place-form-title' }, 'Add a place');
  const formError = h('p', { class: 'error', role: 'alert', 'data-testid': 'place-form-error', hidden: true });
  const save = h('button', { type: 'submit', 'data-testid': 'place-save' }, 'Add the place');
  const cancel = h('button', { type: 'button', class: 'secondary', 'data-testid': 'place-cancel', hidden: true }, 'Cancel');
  const form = h(
    'form',
    { class: 'place-form', 'data-testid': 'place-form', novalidate: true },
    heading,
    h('div', { class: 'grid-form' }, f.name.wrap, f.lat.wrap, f.lon.wrap, f.radius.wrap),
    h('h3', {}, 'Tariff'),
    h('div', { class: 'grid-form' }, f.currency.wrap, f.pricePerKwh.wrap, f.pricePerMinute.wrap, f.sessionFee.wrap, f.timezone.wrap),
    tou,
    zones,
    formError,
    h('div', { class: 'form-actions' }, save, cancel),
  );

  const map = new DrawingMap(webConfig(), 'Map of your places; click to set the centre of the place being edited', 'places-map', (lat, lon) => {
    f.lat.el.value = lat.toFixed(6);
    f.lon.el.value = lon.toFixed(6);
    drawMap(false);
  });

  const tbody = h('tbody', {});
  const table = h(
    'table',
    { class: 'sessions responsive', 'data-testid': 'places' },
    h('caption', { class: 'visually-hidden' }, 'Your places'),
    h('thead', {}, h('tr', {}, ...['Name', 'Where', 'Radius', 'Tariff', ''].map((c) => h('th', { scope: 'col' }, c)))),
    tbody,
  );
  const empty = h(
    'div',
    { class: 'empty', 'data-testid': 'places-empty', hidden: true },
    h('p', {}, 'No places yet.'),
    h('p', { class: 'muted' }, 'Add your home, your work and the chargers you use: drives are named by the places they start and end at, and a charge inside a place is priced with its tariff.'),
  );

  const el = h(
    'section',
    { class: 'page places' },
    h('div', { class: 'page-head' }, h('h1', {}, 'Places'), status),
    h('div', { class: 'places-layout' }, h('div', { class: 'card map-card' }, map.el), h('div', { class: 'card' }, form)),
    h('div', { class: 'card' }, listError, table, empty),
  );

  let list: Place[] = [];
  let editing: number | null = null;
  let alive = true;

  function draft(): { id: number; name: string; lat: number; lon: number; radius: number } | null {
    const lat = Number(f.lat.el.value);
    const lon = Number(f.lon.el.value);
    const radius = Number(f.radius.el.value) || 100;
    if (f.lat.el.value === '' || f.lon.el.value === '' || !Number.isFinite(lat) || !Number.isFinite(lon)) return null;
    return { id: -1, name: f.name.el.value || 'New place', lat, lon, radius };
  }

  function drawMap(fit: boolean): void {
    const d = draft();
    const shown = list.filter((p) => p.id !== editing).map((p) => ({ ...p }));
    void map.showPlaces(d ? [...shown, d] : shown, d ? -1 : null, fit);
  }

  function clearErrors(): void {
    for (const i of Object.values(f)) {
      i.error.hidden = true;
      i.el.removeAttribute('aria-invalid');
    }
    touError.hidden = true;
    formError.hidden = true;
  }

  function showError(name: FieldName | null, text: string): void {
    const target = name === 'timeOfUse' ? { error: touError, el: null } : name ? f[name] : null;
    if (!target) {
      setText(formError, text);
      formError.hidden = false;
      return;
    }
    setText(target.error, text);
    target.error.hidden = false;
    target.el?.setAttribute('aria-invalid', 'true');
    target.el?.focus();
  }

  function fill(p: Place | null): void {
    clearErrors();
    editing = p?.id ?? null;
    f.name.el.value = p?.name ?? '';
    f.lat.el.value = p ? String(p.lat) : '';
    f.lon.el.value = p ? String(p.lon) : '';
    f.radius.el.value = String(p?.radius ?? 100);
    f.timezone.el.value = p?.timezone ?? zone;
    f.currency.el.value = p?.currency ?? list[list.length - 1]?.currency ?? 'EUR';
    f.pricePerKwh.el.value = String(p?.pricePerKwh ?? 0);
    f.pricePerMinute.el.value = String(p?.pricePerMinute ?? 0);
    f.sessionFee.el.value = String(p?.sessionFee ?? 0);
    touRows.replaceChildren();
    for (const w of p?.timeOfUse ?? []) touRow(w);
    setText(heading, p ? `Edit “${p.name}”` : 'Add a place');
    setText(save, p ? 'Save the changes' : 'Add the place');
    cancel.hidden = p === null;
    drawMap(false);
    if (p) void map.focus(p.lat, p.lon);
  }

  /** The form's place, or the first field that is not filled in right. */
  function read(): PlaceInput | { field: FieldName; text: string } {
    const n = (i: Input) => (i.el.value.trim() === '' ? Number.NaN : Number(i.el.value));
    if (f.name.el.value.trim() === '') return { field: 'name', text: 'Give the place a name.' };
    for (const k of ['lat', 'lon', 'radius', 'pricePerKwh', 'pricePerMinute', 'sessionFee'] as const) {
      if (!Number.isFinite(n(f[k]))) return { field: k, text: k === 'lat' || k === 'lon' ? 'Enter a number, or click the map.' : 'Enter a number.' };
    }
    const windows: TariffWindow[] = [];
    for (const row of touRows.querySelectorAll('.tou-row')) {
      const [from, to, price] = [...row.querySelectorAll('input')].map((i) => i.value);
      if (!from || !to || price === undefined || price === '' || !Number.isFinite(Number(price))) return { field: 'timeOfUse', text: 'Each window needs a start, an end and a price.' };
      windows.push({ from, to, pricePerKwh: Number(price) });
    }
    return {
      name: f.name.el.value.trim(),
      lat: n(f.lat),
      lon: n(f.lon),
      radius: n(f.radius),
      timezone: f.timezone.el.value.trim(),
      currency: f.currency.el.value.trim().toUpperCase(),
      pricePerKwh: n(f.pricePerKwh),
      pricePerMinute: n(f.pricePerMinute),
      sessionFee: n(f.sessionFee),
      timeOfUse: windows,
    };
  }

  function row(p: Place): HTMLTableRowElement {
    const edit = on(h('button', { type: 'button', class: 'secondary small', 'data-testid': 'place-edit' }, 'Edit'), { click: () => fill(p) });
    const del = on(h('button', { type: 'button', class: 'danger small', 'data-testid': 'place-delete' }, 'Delete'), { click: () => void remove(p, del) });
    return h(
      'tr',
      { 'data-testid': 'place-row', 'data-id': p.id, 'data-name': p.name },
      h('td', { 'data-label': 'Name' }, h('strong', {}, p.name)),
      h('td', { 'data-label': 'Where' }, h('span', { class: 'mono small' }, `${p.lat.toFixed(5)}, ${p.lon.toFixed(5)}`)),
      h('td', { 'data-label': 'Radius', class: 'num' }, fmt(p.radius, 'm', 0)),
      h('td', { 'data-label': 'Tariff', 'data-testid': 'place-tariff' }, tariffText(p)),
      h('td', { 'data-label': '' }, h('div', { class: 'row-actions' }, edit, del)),
    );
  }

  function showList(fit: boolean): void {
    replace(tbody, ...list.map(row));
    table.hidden = list.length === 0;
    empty.hidden = list.length !== 0;
    setText(status, `${list.length} place${list.length === 1 ? '' : 's'}`);
    drawMap(fit);
  }

  async function load(fit: boolean): Promise<void> {
    try {
      const got = await listPlaces();
      if (!alive) return;
      list = [...got].sort((a, b) => a.id - b.id);
      listError.hidden = true;
      showList(fit);
    } catch (err) {
      if (!alive) return;
      setText(status, '');
      setText(listError, `The places could not be loaded: ${errorText(err)}`);
      listError.hidden = false;
    }
  }

  async function remove(p: Place, button: HTMLButtonElement): Promise<void> {
    if (!confirm(`Delete the place “${p.name}”? Drives and charges there are no longer named or priced by it, and the alerts for arriving at it or leaving it are removed.`)) return;
    button.disabled = true;
    try {
      await removePlace(p.id);
      if (editing === p.id) fill(null);
      await load(false);
    } catch (err) {
      button.disabled = false;
      setText(listError, `The place could not be deleted: ${errorText(err)}`);
      listError.hidden = false;
    }
  }

  on(form, {
    submit: (ev) => {
      ev.preventDefault();
      void (async () => {
        clearErrors();
        const p = read();
        if ('field' in p) return showError(p.field, p.text);
        save.disabled = true;
        try {
          const saved = await savePlace(p, editing ?? undefined);
          if (!alive) return;
          fill(null);
          await load(false);
          setText(status, `Saved “${saved.name}”. Earlier drives and charges there are re-tagged and re-priced.`);
        } catch (err) {
          const detail = err instanceof ApiError ? err.detail : '';
          showError(err instanceof ApiError && err.status === 400 ? fieldOf(detail) : null, err instanceof ApiError && err.status === 400 && detail ? detail : errorText(err));
        } finally {
          save.disabled = false;
        }
      })();
    },
  });
  on(cancel, { click: () => fill(null) });
  for (const k of ['lat', 'lon', 'radius', 'name'] as const) on(f[k].el, { input: () => drawMap(false) });

  void load(true);
  return {
    el,
    title: 'Places',
    destroy() {
      alive = false;
      map.destroy();
    },
  };
}
