/**
 * Vehicle / ABRP: the link of the vehicle to the owner's A Better Route Planner account
 * (`GET/PUT/DELETE /api/abrp/<id>`, docs/abrp.md). Shows whether it is linked, its state, when
 * telemetry was last sent and the last error; a form links it with the ABRP user token (or links
 * it again with a new one), a button unlinks it. The token is never shown again once sent.
 */
import { abrpLink, ApiError, linkAbrp, unlinkAbrp } from '../api';
import { field, h, on, replace, setText } from '../dom';
import { dateTimeText } from '../format';
import type { AbrpLinkInfo } from '../types';
import type { Panel, VehicleContext } from './vehicle';

const STATE_TEXT: Record<NonNullable<AbrpLinkInfo['state']>, { text: string; tone: string }> = {
  pending: { text: 'linked: waiting for the car’s data', tone: 'neutral' },
  ok: { text: 'sending', tone: 'good' },
  failing: { text: 'failing: trying again', tone: 'warn' },
  refused: { text: 'stopped: ABRP refused the token', tone: 'bad' },
};

const when = (t: number | null): string => (t === null ? 'never' : dateTimeText(t, true));

export function abrpPanel(ctx: VehicleContext): Panel {
  const status = h('div', { 'data-testid': 'abrp-status', role: 'status' }, h('p', { class: 'muted' }, 'Loading…'));
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'abrp-error', hidden: true });
  const token = h('input', { type: 'password', name: 'token', autocomplete: 'off', required: true, maxlength: 256, 'data-testid': 'abrp-token' });
  const submit = h('button', { type: 'submit', 'data-testid': 'abrp-link' }, 'Link');
  const unlink = on(h('button', { type: 'button', class: 'secondary', 'data-testid': 'abrp-unlink', hidden: true }, 'Unlink'), { click: () => void remove() });
  const form = h(
    'form',
    { class: 'abrp-form', 'data-testid': 'abrp-form', novalidate: true },
    field('ABRP user token', token, 'ABRP shows it when you set up a generic live-data connection for this car (its car settings, live data); vts then sends the car’s live data to your ABRP account.'),
    h('div', { class: 'form-actions' }, submit, unlink),
  );
  const el = h('section', { class: 'card', 'aria-labelledby': 'abrp-title' }, h('h2', { id: 'abrp-title' }, 'A Better Route Planner'), status, error, form);

  function showError(err: unknown): void {
    if (err instanceof ApiError && err.status === 403) ctx.refused();
    setText(error, err instanceof ApiError ? err.message : String(err));
    error.hidden = false;
  }

  function show(link: AbrpLinkInfo): void {
    error.hidden = true;
    if (!link.configured) {
      replace(status, h('p', { class: 'muted', 'data-testid': 'abrp-off' }, 'ABRP is not configured on this server (the operator has not set an ABRP API key).'));
      form.hidden = !link.linked;
      submit.hidden = true;
      unlink.hidden = !link.linked;
      return;
    }
    form.hidden = false;
    submit.hidden = false;
    unlink.hidden = !link.linked;
    setText(submit, link.linked ? 'Link with a new token' : 'Link');
    if (!link.linked || link.state === null) {
      replace(status, h('p', { 'data-testid': 'abrp-state', 'data-state': 'none' }, 'Not linked.'));
      return;
    }
    const st = STATE_TEXT[link.state];
    replace(
      status,
      h('p', {}, h('span', { class: `state ${st.tone}`, 'data-testid': 'abrp-state', 'data-state': link.state }, st.text)),
      h(
        'dl',
        { class: 'kv' },
        h('dt', {}, 'Linked since'),
        h('dd', {}, when(link.since)),
        h('dt', {}, 'Last sent'),
        h('dd', { 'data-testid': 'abrp-last-sent' }, when(link.lastSent)),
        link.lastError ? h('dt', {}, 'Last error') : null,
        link.lastError ? h('dd', { 'data-testid': 'abrp-last-error' }, `${link.lastError} (${when(link.lastErrorTime)})`) : null,
        link.retryAt !== null ? h('dt', {}, 'Next try') : null,
        link.retryAt !== null ? h('dd', {}, when(link.retryAt)) : null,
      ),
    );
  }

  async function load(): Promise<void> {
    try {
      show(await abrpLink(ctx.id));
    } catch (err) {
      showError(err);
    }
  }

  async function remove(): Promise<void> {
    unlink.disabled = true;
    try {
      await unlinkAbrp(ctx.id);
      await load();
    } catch (err) {
      showError(err);
    } finally {
      unlink.disabled = false;
    }
  }

  on(form, {
    submit: (ev) => {
      ev.preventDefault();
      const value = token.value.trim();
      if (value === '') {
        setText(error, 'Paste your ABRP user token first.');
        error.hidden = false;
        return;
      }
      submit.disabled = true;
      void linkAbrp(ctx.id, value)
        .then((link) => {
          token.value = '';
          show(link);
        }, showError)
        .finally(() => {
          submit.disabled = false;
        });
    },
  });

  return { el, shown: () => void load() };
}
