/**
 * Vehicle / Live: the decoded API v2 bodies (status, charge, location, TPMS), re-read when the live
 * stream reports a record of their code, the position on a map, and recent notifications.
 */
import { ApiError, charge, historical, location, status, tpms, webConfig } from '../api';
import { h, replace, setText } from '../dom';
import { DASH, ageText, dateTimeText, distanceUnit, durationText, fmt, num, str, timeText, utcStamp, utcText } from '../format';
import { VehicleMap } from '../map';
import type { LiveNotification, V2Body } from '../types';
import { bit, card, celsius, dl, minutes, notificationItem, tenths, tpmsGrid, yesNo } from './live-parts';
import type { Panel, VehicleContext } from './vehicle';

type Body = 'status' | 'charge' | 'location' | 'tpms';

/** Which bodies a record code changes (docs/web-api.md, live updates). */
const BODIES_OF: Record<string, Body[]> = { S: ['status', 'charge'], D: ['status', 'charge'], L: ['location'], W: ['tpms'], Y: ['tpms'] };
const READ: Record<Body, (id: string) => Promise<V2Body>> = { status, charge, location, tpms };
const BODY_NAME: Record<Body, string> = { status: 'status', charge: 'charge state', location: 'position', tpms: 'tyre pressures' };

const DEBOUNCE_MS = 150;
/** re-read at least this often while records keep coming faster than the debounce */
const MAX_WAIT_MS = 1_000;
const NOTIFICATIONS_SHOWN = 30;
const NOTIFICATION_DAYS = 7;

export function livePanel(ctx: VehicleContext): Panel {
  const bodies: Record<Body, V2Body> = { status: {}, charge: {}, location: {}, tpms: {} };
  const errors = new Map<Body | 'notifications', string>();
  let alive = true;

  // --- elements ---
  const updated = h('span', { 'data-testid': 'live-updated' }, DASH);
  const updatedAge = h('span', { class: 'muted' });
  const errorBox = h('div', { class: 'error', role: 'alert', hidden: true });
  const soc = h('div', { class: 'big', 'data-testid': 'live-soc' }, DASH);
  const socMeter = h('meter', { min: 0, max: 100, low: 20, high: 80, optimum: 100, 'aria-hidden': 'true' });
  const batteryRows = h('div', {});
  const chargeRows = h('div', {});
  const doorsRows = h('div', {});
  const climateRows = h('div', {});
  const tpmsBox = h('div', {});
  const vmap = new VehicleMap(webConfig(), ctx.id);
  const positionRows = h('div', {});
  const notifications = h('ul', { class: 'notifications', 'data-testid': 'notifications', 'aria-live': 'polite' });
  const noNotifications = h('p', { class: 'muted' }, 'No recent notifications.');

  const el = h(
    'div',
    { class: 'panel live' },
    h('p', { class: 'updated' }, 'Last update: ', updated, ' ', updatedAge),
    errorBox,
    h(
      'div',
      { class: 'cards' },
      card('Battery', 'battery', soc, socMeter, batteryRows),
      card('Charging', 'charge', chargeRows),
      card('Doors and locks', 'doors', doorsRows),
      card('Climate and temperatures', 'climate', climateRows),
      card('Tyres', 'tyres', tpmsBox),
      card('Position', 'position wide', vmap.el, positionRows),
      card('Recent notifications', 'notes', noNotifications, notifications),
    ),
  );

  // --- rendering ---
  function showErrors(): void {
    replace(errorBox, ...[...errors.values()].map((e) => h('p', {}, e)));
    errorBox.hidden = errors.size === 0;
  }

  function showUpdated(): void {
    if (ctx.lastRecord === null) return;
    const t = ctx.lastRecord;
    const now = Date.now() / 1000;
    setText(updated, now - t > 12 * 3600 ? dateTimeText(t, true) : timeText(t));
    updated.setAttribute('title', new Date(t * 1000).toString());
    setText(updatedAge, `(${ageText(now - t)} ago)`);
  }

  function renderBattery(): void {
    const s = bodies.status;
    const c = bodies.charge;
    const unit = distanceUnit(s.units ?? c.units);
    const socValue = num(s.soc ?? c.soc);
    setText(soc, fmt(socValue, '%'));
    soc.dataset.value = socValue === null ? '' : String(socValue);
    socMeter.value = socValue ?? 0;
    socMeter.hidden = socValue === null;
    replace(
      batteryRows,
      dl([
        { label: 'Estimated range', value: fmt(s.estimatedrange, unit, 0), always: true },
        { label: 'Ideal range', value: fmt(s.idealrange, unit, 0) + (num(s.idealrange_max) ? ` of ${fmt(s.idealrange_max, unit, 0)}` : ''), always: true },
        { label: 'Health (SOH)', value: fmt(s.soh, '%') },
        { label: 'Capacity', value: fmt(c.batt_capacity, 'kWh') },
        { label: 'Voltage', value: fmt(c.battvoltage, 'V') },
        { label: 'Current', value: fmt(c.batt_current, 'A') },
        { label: '12 V battery', value: fmt(s.vehicle12v, 'V', 2) },
      ]),
    );
  }

  function renderCharge(): void {
    const c = bodies.charge;
    const unit = distanceUnit(c.units);
    const plugged = bit(c, 'pilotpresent');
    const timer = str(c.chargetimermode);
    const energy = tenths(c.chargekwh);
    const volts = num(c.linevoltage);
    const amps = num(c.chargecurrent);
    replace(
      chargeRows,
      dl([
        { label: 'State', value: str(c.chargestate), always: true, cls: c.chargestate === 'charging' ? 'good' : '' },
        { label: 'Mode', value: str(c.mode) },
        { label: 'Plug', value: yesNo(plugged, 'plugged in', 'not plugged in') },
        { label: 'Supply', value: !volts && !amps ? DASH : `${fmt(volts, 'V', 0)} · ${fmt(amps, 'A')}` },
        { label: 'Current limit', value: fmt(c.chargelimit, 'A', 0) },
        { label: 'Power', value: fmt(c.chargepower, 'kW', 2) },
        { label: 'Power from grid', value: fmt(c.chargepowerinput, 'kW', 2) },
        { label: 'Energy charged', value: fmt(energy, 'kWh') },
        { label: 'Charging for', value: num(c.chargeduration) ? durationText(num(c.chargeduration) ?? 0) : DASH },
        { label: 'Full in', value: minutes(c.charge_etr_full) },
        { label: 'Limit in', value: minutes(c.charge_etr_limit) },
        { label: 'SOC limit', value: num(c.charge_limit_soc) ? fmt(c.charge_limit_soc, '%', 0) : DASH },
        { label: 'Range limit', value: num(c.charge_limit_range) ? fmt(c.charge_limit_range, unit, 0) : DASH },
        { label: 'Timer', value: timer === '1' ? `on (start ${str(c.chargestarttime)})` : timer === '0' ? 'off' : DASH },
      ]),
    );
  }

  function renderDoors(): void {
    const s = bodies.status;
    if (s.m_msgtime_d === undefined) {
      replace(doorsRows, h('p', { class: 'muted' }, 'No door and lock state reported yet.'));
      return;
    }
    const unit = distanceUnit(s.units);
    const open = (
      [
        ['fl_dooropen', 'front left door'],
        ['fr_dooropen', 'front right door'],
        ['tr_open', 'trunk'],
        ['bt_open', 'bonnet'],
        ['cp_dooropen', 'charge port'],
      ] as const
    )
      .filter(([k]) => bit(s, k))
      .map(([, name]) => name);
    const locked = bit(s, 'carlocked');
    const parked = num(s.parkingtimer);
    replace(
      doorsRows,
      dl([
        { label: 'Locks', value: yesNo(locked, 'locked', 'unlocked'), always: true, cls: locked ? 'good' : 'warn' },
        { label: 'Doors', value: open.length === 0 ? 'all closed' : `open: ${open.join(', ')}`, always: true, cls: open.length ? 'warn' : '' },
        { label: 'Valet mode', value: yesNo(bit(s, 'valetmode'), 'on', 'off') },
        { label: 'Ignition', value: yesNo(bit(s, 'caron'), 'on', 'off') },
        { label: 'Handbrake', value: yesNo(bit(s, 'handbrake'), 'on', 'off') },
        { label: 'Alarm', value: bit(s, 'alarmsounding') ? 'sounding' : DASH, cls: 'warn' },
        { label: 'Odometer', value: fmt(tenths(s.odometer), unit, 1) },
        { label: 'Trip', value: fmt(tenths(s.tripmeter), unit, 1) },
        { label: 'Speed', value: fmt(s.speed, 'km/h', 0) },
        { label: 'Parked for', value: parked ? durationText(parked) : DASH },
      ]),
    );
  }

  function renderClimate(): void {
    const s = bodies.status;
    const stale = str(s.staletemps) === '0' ? ' (stale)' : '';
    const staleAmbient = str(s.staleambient) === '0' ? ' (stale)' : '';
    const t = (v: unknown, suffix: string) => (celsius(v) === DASH ? DASH : celsius(v) + suffix);
    replace(
      climateRows,
      dl([
        { label: 'Cabin', value: t(s.temperature_cabin, ''), always: true },
        { label: 'Outside', value: t(s.temperature_ambient, staleAmbient), always: true },
        { label: 'Battery', value: t(s.temperature_battery, stale) },
        { label: 'Motor', value: t(s.temperature_motor, stale) },
        { label: 'Inverter', value: t(s.temperature_pem, stale) },
        { label: 'Charger', value: t(s.temperature_charger, '') },
      ]),
    );
  }

  function renderPosition(): void {
    const l = bodies.location;
    const lat = num(l.latitude);
    const lon = num(l.longitude);
    if (lat === null || lon === null) {
      replace(positionRows, h('p', { class: 'muted' }, 'No position reported yet.'));
      return;
    }
    void vmap.setPosition(lat, lon);
    const unit = distanceUnit(bodies.status.units);
    replace(
      positionRows,
      dl([
        { label: 'Coordinates', value: `${lat.toFixed(6)}, ${lon.toFixed(6)}`, always: true, cls: 'coords' },
        { label: 'Speed', value: fmt(l.speed, `${unit}/h`, 0) },
        { label: 'Heading', value: fmt(l.direction, '°', 0) },
        { label: 'Altitude', value: fmt(l.altitude, 'm', 0) },
        { label: 'GPS', value: str(l.gpslock) === '1' ? (str(l.stalegps) === '0' ? 'lock (stale)' : 'lock') : str(l.gpslock) === '0' ? 'no lock' : DASH },
        { label: 'Battery power', value: fmt(l.power, 'kW', 2) },
        { label: 'Reported', value: l.m_msgtime_l ? utcText(l.m_msgtime_l) : DASH },
      ]),
    );
  }

  function render(which: Body): void {
    if (which === 'status' || which === 'charge') {
      renderBattery();
      renderCharge();
      renderDoors();
      renderClimate();
    } else if (which === 'location') {
      renderPosition();
    } else {
      replace(tpmsBox, tpmsGrid(bodies.tpms));
    }
  }

  // --- loading ---
  async function load(which: Body): Promise<void> {
    try {
      bodies[which] = await READ[which](ctx.id);
      errors.delete(which);
    } catch (err) {
      // refused: the page finds out whether the vehicle is still the user's (else "not found")
      if (err instanceof ApiError && err.status === 403) ctx.refused();
      errors.set(which, `The ${BODY_NAME[which]} could not be read: ${err instanceof ApiError ? err.message : String(err)}`);
    }
    if (!alive) return;
    render(which);
    showErrors();
  }

  const dirty = new Set<Body>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let firstDirty = 0;
  let busy = false;

  function markDirty(list: Body[]): void {
    if (list.length === 0) return;
    for (const b of list) dirty.add(b);
    const now = Date.now();
    if (firstDirty === 0) firstDirty = now;
    clearTimeout(timer);
    timer = setTimeout(() => void flush(), now - firstDirty >= MAX_WAIT_MS ? 0 : DEBOUNCE_MS);
  }

  async function flush(): Promise<void> {
    if (!alive) return;
    if (busy) {
      // one round at a time: the next starts when this one ends
      timer = setTimeout(() => void flush(), DEBOUNCE_MS);
      return;
    }
    busy = true;
    firstDirty = 0;
    const list = [...dirty];
    dirty.clear();
    try {
      await Promise.all(list.map(load));
    } finally {
      busy = false;
    }
  }

  function addNotification(n: LiveNotification, atTop: boolean): void {
    const item = notificationItem(n);
    if (atTop) notifications.prepend(item);
    else notifications.append(item);
    while (notifications.children.length > NOTIFICATIONS_SHOWN) notifications.lastElementChild?.remove();
    noNotifications.hidden = true;
  }

  async function loadNotifications(): Promise<void> {
    try {
      const since = utcStamp(Date.now() / 1000 - NOTIFICATION_DAYS * 86400);
      const rows = await historical(ctx.id, '*-Log-Notification', since);
      if (!alive) return;
      const recent = rows.slice(-NOTIFICATIONS_SHOWN).reverse();
      // live ones that came in meanwhile stay on top
      for (const r of recent) {
        const comma = r.h_data.indexOf(',');
        const type = comma > 0 ? r.h_data.slice(0, comma) : 'I';
        const text = comma > 0 ? r.h_data.slice(comma + 1) : r.h_data;
        addNotification({ type, text, time: r.h_timestamp }, false);
      }
      errors.delete('notifications');
    } catch (err) {
      if (!alive) return;
      // no notification history is not worth more than a note
      if (err instanceof ApiError && err.status === 403) ctx.refused();
      if (!(err instanceof ApiError && err.status === 404)) {
        errors.set('notifications', `Recent notifications could not be read: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    showErrors();
  }

  const unsubscribe = ctx.stream.subscribe({
    record(r) {
      showUpdated();
      markDirty(BODIES_OF[r.code] ?? []);
    },
    notification(n) {
      addNotification(n, true);
    },
  });
  const ageTimer = setInterval(showUpdated, 5_000);

  for (const b of ['status', 'charge', 'location', 'tpms'] as const) render(b);
  showUpdated();
  void Promise.all((['status', 'charge', 'location', 'tpms'] as const).map(load));
  void loadNotifications();

  return {
    el,
    shown() {
      vmap.resize();
      showUpdated();
    },
    destroy() {
      alive = false;
      unsubscribe();
      clearTimeout(timer);
      clearInterval(ageTimer);
      vmap.destroy();
    },
  };
}
