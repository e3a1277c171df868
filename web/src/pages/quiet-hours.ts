/**
 * Vehicle / Alerts: the owner's quiet hours (`GET|PUT /api/alerts`), which hold the alerts of all
 * the owner's vehicles: they are logged at once and pushed when the quiet hours end (the car's own
 * alarms are not held). A form sets them (from, to, the time zone, the browser's by default); a
 * button turns them off (`{"quietHours":null}`). The server names a field it refuses; the error is
 * shown next to it.
 */
import { fieldAt } from '../alert-text';
import { alertSettings, ApiError, saveAlertSettings } from '../api';
import { h, on, setText } from '../dom';
import { sentence } from '../error-text';
import type { AlertSettings, QuietHours } from '../types';
import { checkedField, clearFieldError, showFieldError, type CheckedField } from './alert-form';

export interface QuietHoursCard {
  el: HTMLElement;
  load(): Promise<void>;
}

const FIELDS = ['from', 'to', 'timezone'] as const;
type QuietField = (typeof FIELDS)[number];

export function quietHoursCard(refused: () => void): QuietHoursCard {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [zone];
  const state = h('p', { class: 'quiet-state', role: 'status', 'data-testid': 'quiet-state', 'data-state': 'unknown' }, 'Loading…');
  const f: Record<QuietField, CheckedField> = {
    from: checkedField('quiet', 'from', 'From', h('input', { type: 'time', name: 'from', value: '22:00', required: true })),
    to: checkedField('quiet', 'to', 'To', h('input', { type: 'time', name: 'to', value: '07:00', required: true })),
    timezone: checkedField('quiet', 'timezone', 'Time zone', h('input', { type: 'text', name: 'timezone', value: zone, list: 'quiet-zones', required: true, autocomplete: 'off' })),
  };
  const formError = h('p', { class: 'error', role: 'alert', 'data-testid': 'quiet-form-error', hidden: true });
  const save = h('button', { type: 'submit', 'data-testid': 'quiet-save' }, 'Set the quiet hours');
  const off = h('button', { type: 'button', class: 'secondary', 'data-testid': 'quiet-off', hidden: true }, 'Turn them off');
  const form = h(
    'form',
    { class: 'quiet-form', 'data-testid': 'quiet-form', novalidate: true },
    h('div', { class: 'grid-form' }, f.from.wrap, f.to.wrap, f.timezone.wrap),
    h('datalist', { id: 'quiet-zones' }, ...zones.map((z) => h('option', { value: z }))),
    formError,
    h('div', { class: 'form-actions' }, save, off),
  );
  const el = h(
    'section',
    { class: 'card', 'aria-labelledby': 'quiet-title', 'data-testid': 'quiet-card' },
    h('h2', { id: 'quiet-title' }, 'Quiet hours'),
    h(
      'p',
      { class: 'hint' },
      'During quiet hours alerts are logged at once and pushed when they end; the car’s own alarms are not held. They apply to all your vehicles. A time span past midnight (22:00 to 07:00) is fine.',
    ),
    state,
    form,
  );

  function show(s: AlertSettings): void {
    const q = s.quietHours;
    state.dataset.state = q ? 'on' : 'off';
    setText(state, q ? `Quiet from ${q.from} to ${q.to} (${q.timezone}).` : 'No quiet hours: alerts are pushed at once.');
    off.hidden = q === null;
    setText(save, q ? 'Save the changes' : 'Set the quiet hours');
    if (q) {
      (f.from.control as HTMLInputElement).value = q.from;
      (f.to.control as HTMLInputElement).value = q.to;
      (f.timezone.control as HTMLInputElement).value = q.timezone;
    }
  }

  function clearErrors(): void {
    for (const x of Object.values(f)) clearFieldError(x);
    formError.hidden = true;
  }

  function failed(err: unknown): void {
    if (err instanceof ApiError && err.status === 403) refused();
    const field = err instanceof ApiError && err.status === 400 ? fieldAt(err.detail, FIELDS) : null;
    if (field && err instanceof ApiError) return showFieldError(f[field], sentence(err.detail));
    setText(formError, err instanceof ApiError ? err.message : String(err));
    formError.hidden = false;
  }

  async function put(settings: AlertSettings, button: HTMLButtonElement): Promise<void> {
    clearErrors();
    button.disabled = true;
    try {
      show(await saveAlertSettings(settings));
    } catch (err) {
      failed(err);
    } finally {
      button.disabled = false;
    }
  }

  on(form, {
    submit: (ev) => {
      ev.preventDefault();
      clearErrors();
      const q: QuietHours = { from: f.from.control.value, to: f.to.control.value, timezone: f.timezone.control.value.trim() };
      for (const k of FIELDS) if (q[k] === '') return showFieldError(f[k], k === 'timezone' ? 'Enter a time zone such as Europe/Berlin.' : 'Enter a time.');
      if (q.from === q.to) return showFieldError(f.to, 'The same time as “From” means no quiet hours: choose another, or turn them off.');
      void put({ quietHours: q }, save);
    },
  });
  on(off, { click: () => void put({ quietHours: null }, off) });

  return {
    el,
    async load() {
      try {
        show(await alertSettings());
        formError.hidden = true;
      } catch (err) {
        failed(err);
      }
    },
  };
}
