/**
 * Vehicle / Alerts (issue 30, docs/alerts.md): the rules by which the server alerts the owner about
 * this vehicle (`GET|POST /api/alerts/<id>`, `PUT|DELETE /api/alerts/<id>/<ruleId>`), each read as
 * a sentence ("When the SOC reaches 80 % while charging", "When arriving at Work") with its Edit
 * and Delete buttons; the form that adds or edits one (alert-form.ts); and the owner's quiet hours,
 * which hold the alerts of all their vehicles (quiet-hours.ts). The alerts go where the car's own
 * notifications go: the apps' subscriptions and the owner's targets (Account page); the
 * Notifications tab shows what was sent.
 */
import { ApiError, alertRules, places as listPlaces, removeAlertRule, saveAlertRule } from '../api';
import { ruleSentence } from '../alert-text';
import { h, on, replace, setText } from '../dom';
import { dateTimeText } from '../format';
import { href } from '../router';
import type { AlertRuleRow, Place } from '../types';
import { ruleForm } from './alert-form';
import { quietHoursCard } from './quiet-hours';
import type { Panel, VehicleContext } from './vehicle';

export function alertsPanel(ctx: VehicleContext): Panel {
  const status = h('p', { class: 'muted small', role: 'status', 'data-testid': 'alerts-status' }, 'Loading…');
  const listError = h('p', { class: 'error', role: 'alert', 'data-testid': 'alerts-error', hidden: true });
  const list = h('ul', { class: 'alert-rules', 'data-testid': 'alert-rules' });
  const empty = h(
    'p',
    { class: 'muted', 'data-testid': 'alerts-empty', hidden: true },
    'No alerts yet. Add one below: the server watches the car and tells you when it charges, stops, leaves or arrives, runs low…',
  );

  const form = ruleForm({
    save: (rule, id) => saveAlertRule(ctx.id, rule, id),
    saved: (rule, added) => {
      void load().then(() => setText(status, `${added ? 'Added' : 'Saved'}: ${ruleSentence(rule, placeName)}.`));
    },
    refused: () => ctx.refused(),
    editChanged: () => showEditing(),
  });
  const quiet = quietHoursCard(() => ctx.refused());

  const el = h(
    'div',
    { class: 'panel alerts-panel' },
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'alerts-title' },
      h('div', { class: 'list-head' }, h('h2', { id: 'alerts-title' }, 'Alerts'), status),
      h(
        'p',
        { class: 'hint' },
        'The server sends these to your apps and to your webhooks and ntfy topics (',
        h('a', { href: href({ name: 'account' }) }, 'Account'),
        '), like the car’s own notifications; the Notifications tab shows what was sent.',
      ),
      listError,
      list,
      empty,
    ),
    h('div', { class: 'alerts-layout' }, h('section', { class: 'card', 'aria-label': 'Add or edit an alert' }, form.el), quiet.el),
  );

  let rules: AlertRuleRow[] = [];
  let places: Place[] = [];
  let alive = true;
  let request = 0;
  let quietLoaded = false;

  const placeName = (id: number): string | null => places.find((p) => p.id === id)?.name ?? null;

  function failed(err: unknown, what: string): void {
    if (err instanceof ApiError && err.status === 403) ctx.refused();
    setText(listError, `${what}: ${err instanceof ApiError ? err.message : String(err)}`);
    listError.hidden = false;
  }

  function item(rule: AlertRuleRow): HTMLLIElement {
    const text = ruleSentence(rule, placeName);
    const edit = on(h('button', { type: 'button', class: 'secondary small', 'data-testid': 'alert-edit', 'aria-label': `Edit: ${text}` }, 'Edit'), {
      click: () => {
        form.edit(rule);
        form.el.scrollIntoView({ block: 'nearest' });
      },
    });
    const del = on(h('button', { type: 'button', class: 'danger small', 'data-testid': 'alert-delete', 'aria-label': `Delete: ${text}` }, 'Delete'), {
      click: () => void remove(rule, text, del),
    });
    return h(
      'li',
      { class: 'alert-rule', 'data-testid': 'alert-rule', 'data-id': rule.id, 'data-kind': rule.kind },
      h(
        'div',
        { class: 'alert-rule-body' },
        h('span', { class: 'alert-rule-text', 'data-testid': 'alert-rule-text' }, text),
        h('small', { class: 'muted' }, `Added ${dateTimeText(rule.created)}`),
      ),
      h('div', { class: 'row-actions' }, edit, del),
    );
  }

  /** Marks the rule the form edits. */
  function showEditing(): void {
    const id = form.editing();
    for (const li of list.querySelectorAll<HTMLElement>('li.alert-rule')) li.classList.toggle('editing', id !== null && li.dataset.id === String(id));
  }

  function show(): void {
    replace(list, ...rules.map(item));
    list.hidden = rules.length === 0;
    empty.hidden = rules.length > 0;
    setText(status, rules.length ? `${rules.length} alert${rules.length === 1 ? '' : 's'}` : '');
    showEditing();
  }

  async function load(): Promise<void> {
    const mine = ++request;
    el.setAttribute('aria-busy', 'true');
    try {
      // the place rules name the owner's places: a failure there only leaves them unnamed
      const [got, owned] = await Promise.all([alertRules(ctx.id), listPlaces().catch(() => null)]);
      if (!alive || mine !== request) return;
      rules = [...got].sort((a, b) => a.id - b.id);
      if (owned) places = owned;
      form.setPlaces(places);
      // a rule edited here and deleted elsewhere meanwhile: the form adds one again
      if (form.editing() !== null && !rules.some((r) => r.id === form.editing())) form.edit(null);
      listError.hidden = true;
      show();
    } catch (err) {
      if (!alive || mine !== request) return;
      setText(status, '');
      failed(err, 'The alerts could not be loaded');
    } finally {
      if (mine === request) el.removeAttribute('aria-busy');
    }
  }

  async function remove(rule: AlertRuleRow, text: string, button: HTMLButtonElement): Promise<void> {
    if (!confirm(`Delete this alert?\n\n${text}`)) return;
    button.disabled = true;
    try {
      await removeAlertRule(ctx.id, rule.id);
      if (form.editing() === rule.id) form.edit(null);
      await load();
      setText(status, `Deleted: ${text}.`);
    } catch (err) {
      button.disabled = false;
      // already gone (deleted in another tab): the list is read again
      if (err instanceof ApiError && err.status === 404) return void load();
      failed(err, 'The alert could not be deleted');
    }
  }

  return {
    el,
    shown() {
      void load();
      if (!quietLoaded) {
        quietLoaded = true;
        void quiet.load();
      }
    },
    destroy() {
      alive = false;
    },
  };
}
