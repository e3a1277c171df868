/**
 * Vehicle / Alerts: the form that adds a rule or edits one. The kind's select shows only that
 * kind's settings (a SOC or a voltage, a time entered in a friendly unit and sent in seconds, one
 * of the owner's places); a line under it reads the rule as it will be. The page checks only that
 * the fields are filled in; the server checks the ranges and names the field it refuses, and the
 * error is shown next to that field (as on the Places page).
 */
import { AFTER_UNITS, afterInput, afterSeconds, fieldAt, isKind, KIND_INFO, KINDS, ruleSentence, type AfterUnit, type Setting } from '../alert-text';
import { ApiError } from '../api';
import { h, on, replace, setText } from '../dom';
import { sentence } from '../error-text';
import { href } from '../router';
import type { AlertRuleInput, AlertRuleRow, Place, RuleKind } from '../types';

/** A form field with its error line (shown next to it, `<prefix>-error-<name>`). */
export interface CheckedField {
  wrap: HTMLElement;
  label: HTMLElement;
  error: HTMLElement;
  /** the control that takes the focus and `aria-invalid` */
  control: HTMLInputElement | HTMLSelectElement;
}

export function checkedField(prefix: string, name: string, label: string, control: HTMLInputElement | HTMLSelectElement, extra?: Node, hint?: Node | string): CheckedField {
  const id = `${prefix}-${name}`;
  control.id = id;
  control.setAttribute('data-testid', id);
  control.setAttribute('aria-describedby', `${id}-error`);
  const error = h('small', { class: 'field-error', role: 'alert', id: `${id}-error`, 'data-testid': `${prefix}-error-${name}`, hidden: true });
  const labelEl = h('span', { class: 'field-label' }, label);
  const wrap = h('div', { class: 'field' }, h('label', { for: id }, labelEl), extra ? h('div', { class: 'field-row' }, control, extra) : control, hint ? h('small', { class: 'hint' }, hint) : null, error);
  return { wrap, label: labelEl, error, control };
}

export function showFieldError(f: CheckedField, text: string): void {
  setText(f.error, text);
  f.error.hidden = false;
  f.control.setAttribute('aria-invalid', 'true');
  f.control.focus();
}

export function clearFieldError(f: CheckedField): void {
  f.error.hidden = true;
  f.control.removeAttribute('aria-invalid');
}

export interface RuleForm {
  el: HTMLElement;
  /** the owner's places, for the place select */
  setPlaces(places: readonly Place[]): void;
  /** fills the form with a rule to edit, or empties it to add one */
  edit(rule: AlertRuleRow | null): void;
  /** the rule being edited, if any */
  editing(): number | null;
}

export interface RuleFormOptions {
  save(rule: AlertRuleInput, id?: number): Promise<AlertRuleRow>;
  /** after a rule was saved (the form is empty again) */
  saved(rule: AlertRuleRow, added: boolean): void;
  /** a call refused with 403 */
  refused(): void;
  /** the form began or ended editing a rule */
  editChanged(): void;
}

export function ruleForm(opts: RuleFormOptions): RuleForm {
  const kindSelect = h('select', { name: 'kind' }, ...KINDS.map((k) => h('option', { value: k }, KIND_INFO[k].label)));
  const thresholdInput = h('input', { type: 'number', name: 'threshold', inputmode: 'decimal', class: 'short', required: true });
  const afterInputEl = h('input', { type: 'number', name: 'after', step: 'any', min: 0, inputmode: 'decimal', class: 'short', required: true });
  const unitSelect = h('select', { name: 'after-unit', 'data-testid': 'alert-after-unit', 'aria-label': 'Unit' }, ...AFTER_UNITS.map((u) => h('option', { value: u.unit }, u.label)));
  const placeSelect = h('select', { name: 'place' });
  const noPlaces = h(
    'span',
    { 'data-testid': 'alert-no-places', hidden: true },
    'You have no places yet: ',
    h('a', { href: href({ name: 'places' }) }, 'add one on the Places page'),
    ', then choose it here.',
  );

  const f: Record<'kind' | Setting, CheckedField> = {
    kind: checkedField('alert', 'kind', 'Alert me', kindSelect),
    threshold: checkedField('alert', 'threshold', 'SOC (%)', thresholdInput),
    after: checkedField('alert', 'after', 'After', afterInputEl, unitSelect),
    place: checkedField('alert', 'place', 'Place', placeSelect, undefined, noPlaces),
  };
  const preview = h('p', { class: 'alert-preview', 'data-testid': 'alert-preview', 'aria-live': 'polite' });
  const heading = h('h2', { 'data-testid': 'alert-form-title' }, 'Add an alert');
  const formError = h('p', { class: 'error', role: 'alert', 'data-testid': 'alert-form-error', hidden: true });
  const save = h('button', { type: 'submit', 'data-testid': 'alert-save' }, 'Add the alert');
  const cancel = h('button', { type: 'button', class: 'secondary', 'data-testid': 'alert-cancel', hidden: true }, 'Cancel');
  const el = h(
    'form',
    { class: 'alert-form', 'data-testid': 'alert-form', novalidate: true },
    heading,
    h('div', { class: 'grid-form' }, f.kind.wrap, f.threshold.wrap, f.after.wrap, f.place.wrap),
    preview,
    formError,
    h('div', { class: 'form-actions' }, save, cancel),
  );

  let places: readonly Place[] = [];
  let editing: number | null = null;
  /** the place a rule being edited names, kept selected while the places load */
  let wantedPlace: number | null = null;

  const kind = (): RuleKind => (isKind(kindSelect.value) ? kindSelect.value : 'soc-reached');
  const placeName = (id: number) => places.find((p) => p.id === id)?.name ?? null;

  function clearErrors(): void {
    for (const x of Object.values(f)) clearFieldError(x);
    formError.hidden = true;
  }

  /** Shows the chosen kind's settings only; `fresh`: they start from the kind's own values. */
  function showKind(fresh: boolean): void {
    const info = KIND_INFO[kind()];
    for (const s of ['threshold', 'after', 'place'] as const) f[s].wrap.hidden = !info.settings.includes(s);
    if (info.threshold) {
      const t = info.threshold;
      setText(f.threshold.label, t.unit === '%' ? 'SOC (%)' : '12 V battery below (V)');
      Object.assign(thresholdInput, { step: t.step, min: String(t.min), max: String(t.max) });
      if (fresh) thresholdInput.value = String(t.initial);
    }
    if (info.after !== undefined) {
      setText(f.after.label, kind() === 'v12-low' ? 'For at least' : kind() === 'offline' ? 'Offline for' : 'Not resumed within');
      if (fresh) fillAfter(info.after);
    }
    updatePreview();
  }

  function fillAfter(seconds: number): void {
    const a = afterInput(seconds);
    afterInputEl.value = String(a.value);
    unitSelect.value = a.unit;
  }

  function fillPlaces(): void {
    const chosen = placeSelect.value === '' ? wantedPlace : Number(placeSelect.value);
    const options = places.map((p) => h('option', { value: p.id }, p.name));
    if (chosen !== null && !places.some((p) => p.id === chosen)) options.push(h('option', { value: chosen }, `place #${chosen} (deleted)`));
    replace(placeSelect, ...options);
    if (chosen !== null) placeSelect.value = String(chosen);
    placeSelect.disabled = options.length === 0;
    noPlaces.hidden = places.length > 0;
  }

  /** The rule the form holds, or the field that is not filled in and what to do. */
  function read(): AlertRuleInput | { field: 'kind' | Setting; text: string } {
    const k = kind();
    const info = KIND_INFO[k];
    const threshold = thresholdInput.value.trim() === '' ? Number.NaN : Number(thresholdInput.value);
    if (info.settings.includes('threshold') && !Number.isFinite(threshold)) return { field: 'threshold', text: 'Enter a number.' };
    const after = afterSeconds(afterInputEl.value, unitSelect.value as AfterUnit);
    if (info.settings.includes('after') && after === null) return { field: 'after', text: 'Enter a time from 1 second to 30 days.' };
    const place = placeSelect.value === '' ? null : Number(placeSelect.value);
    if (info.settings.includes('place') && place === null) return { field: 'place', text: places.length ? 'Choose a place.' : 'Add a place on the Places page first.' };
    switch (k) {
      case 'soc-reached':
      case 'soc-below':
        return { kind: k, threshold };
      case 'charge-stopped':
      case 'offline':
        return { kind: k, after: after as number };
      case 'place-arrive':
      case 'place-leave':
        return { kind: k, place: place as number };
      case 'v12-low':
        return { kind: k, threshold, after: after as number };
      case 'charge-started':
      case 'charge-done':
      case 'drive-report':
        return { kind: k };
    }
  }

  function updatePreview(): void {
    const r = read();
    setText(preview, 'kind' in r ? `${ruleSentence(r, placeName)}.` : '');
  }

  function fill(rule: AlertRuleRow | null): void {
    clearErrors();
    editing = rule?.id ?? null;
    kindSelect.value = rule?.kind ?? 'soc-reached';
    showKind(true);
    wantedPlace = null;
    if (rule && 'threshold' in rule) thresholdInput.value = String(rule.threshold);
    if (rule && 'after' in rule) fillAfter(rule.after);
    if (rule && 'place' in rule) wantedPlace = rule.place;
    placeSelect.value = '';
    fillPlaces();
    setText(heading, rule ? 'Edit the alert' : 'Add an alert');
    setText(save, rule ? 'Save the changes' : 'Add the alert');
    cancel.hidden = rule === null;
    updatePreview();
  }

  function edit(rule: AlertRuleRow | null): void {
    fill(rule);
    opts.editChanged();
  }

  on(kindSelect, {
    change: () => {
      clearErrors();
      showKind(true);
    },
  });
  for (const c of [thresholdInput, afterInputEl]) on(c, { input: updatePreview });
  for (const c of [unitSelect, placeSelect]) on(c, { change: updatePreview });
  on(cancel, { click: () => edit(null) });
  on(el, {
    submit: (ev) => {
      ev.preventDefault();
      clearErrors();
      const rule = read();
      if ('field' in rule) return showFieldError(f[rule.field], rule.text);
      const id = editing ?? undefined;
      save.disabled = true;
      void opts
        .save(rule, id)
        .then(
          (saved) => {
            edit(null);
            opts.saved(saved, id === undefined);
          },
          (err: unknown) => {
            if (err instanceof ApiError && err.status === 403) opts.refused();
            const field = err instanceof ApiError && err.status === 400 ? fieldAt(err.detail, ['kind', 'threshold', 'after', 'place'] as const) : null;
            if (field && err instanceof ApiError) return showFieldError(f[field], sentence(err.detail));
            setText(formError, err instanceof ApiError ? err.message : String(err));
            formError.hidden = false;
          },
        )
        .finally(() => {
          save.disabled = false;
        });
    },
  });

  fill(null);
  return {
    el,
    setPlaces(list) {
      places = [...list].sort((a, b) => a.name.localeCompare(b.name));
      fillPlaces();
      updatePreview();
    },
    edit,
    editing: () => editing,
  };
}
