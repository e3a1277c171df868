/**
 * Account / Push notifications (docs/web-api.md "Push notifications"): the apps' `p` subscriptions
 * of the user's vehicles with their last delivery result (delete), and the user's own targets —
 * webhooks and ntfy topics — (add, remove). Used by account.ts.
 */
import {
  addNotifyTarget,
  ApiError,
  deletePushSubscription,
  notifyTargets,
  pushSubscriptions,
  removeNotifyTarget,
} from '../api';
import { field, h, on, replace, setText } from '../dom';
import { utcStamp, utcText } from '../format';
import { channelLabel } from '../push-text';
import { href } from '../router';
import type { NotifyTargetRow, PushSubscriptionRow, TargetKind } from '../types';

function errorText(err: unknown): string {
  // the dispatcher's plain-text 403 for a sign-in without the right (an API token's session)
  if (err instanceof ApiError && err.status === 403 && /rights/i.test(err.detail)) {
    return 'This sign-in may not change notifications (it needs the right push.admin).';
  }
  return err instanceof ApiError ? err.message : String(err);
}

/** The last result of a subscription or target, and when (its UTC time in the tooltip). */
function lastResult(result: string, time: number | null): HTMLElement {
  if (result === '' || time === null) return h('span', { class: 'muted' }, 'never tried');
  return h(
    'span',
    { class: 'cell' },
    h('span', { class: 'result-text' }, result),
    h('span', { class: 'sub', title: `${utcStamp(time)} UTC` }, utcText(time)),
  );
}

const HELP: Record<TargetKind, string> = {
  webhook: 'A webhook gets each notification as a JSON POST; with a secret, the request is signed with the header X-Vts-Signature (HMAC-SHA256 of the body).',
  ntfy: 'An ntfy topic URL, like https://ntfy.sh/<topic> or the topic on your own ntfy server; put access credentials in the URL (https://user:pass@host/topic).',
};

const PLACEHOLDER: Record<TargetKind, string> = {
  webhook: 'https://example.com/hooks/vts',
  ntfy: 'https://ntfy.sh/my-car-alerts',
};

export function pushSection(): { el: HTMLElement; destroy: () => void } {
  let alive = true;

  // --- the apps' subscriptions ---
  const subsError = h('p', { class: 'error', role: 'alert', hidden: true });
  const subsBody = h('tbody', {});
  const subsTable = h(
    'table',
    { class: 'push-subs responsive', 'data-testid': 'push-subs' },
    h('caption', { class: 'visually-hidden' }, 'Push subscriptions of your apps'),
    h(
      'thead',
      {},
      h('tr', {}, ...['Vehicle', 'App', 'Channel', 'Key', 'Last delivery', ''].map((c) => h('th', { scope: 'col' }, c))),
    ),
    subsBody,
  );

  function subscriptionRow(s: PushSubscriptionRow): HTMLTableRowElement {
    const remove = h('button', { type: 'button', class: 'danger small', 'data-testid': 'push-sub-delete' }, 'Delete');
    const tr = h(
      'tr',
      { 'data-testid': 'push-sub-row', 'data-vehicle': s.vehicleId, 'data-app': s.appId },
      h('td', { 'data-label': 'Vehicle' }, h('a', { href: href({ name: 'vehicle', id: s.vehicleId, tab: 'notifications' }) }, s.vehicleId)),
      h(
        'td',
        { 'data-label': 'App' },
        h('span', { class: 'cell' }, h('code', {}, s.appId), h('span', { class: 'sub', title: `${utcStamp(s.lastUpdated)} UTC` }, `since ${utcText(s.lastUpdated)}`)),
      ),
      h(
        'td',
        { 'data-label': 'Channel' },
        s.channel === null
          ? h('span', { class: 'cell' }, s.pushType, h('span', { class: 'sub warn' }, 'not delivered: no channel for this subscription'))
          : channelLabel(s.channel),
      ),
      h(
        'td',
        { 'data-label': 'Key' },
        h('span', { class: 'cell' }, h('code', { class: 'push-key' }, s.key), s.keyType ? h('span', { class: 'sub' }, s.keyType) : null),
      ),
      h('td', { 'data-label': 'Last delivery', 'data-testid': 'push-sub-result' }, lastResult(s.lastResult, s.lastTime)),
      h('td', {}, remove),
    );
    on(remove, {
      click: () => {
        if (!window.confirm(`Delete the subscription of app “${s.appId}” for ${s.vehicleId}? The app gets no notifications until it subscribes again.`)) return;
        remove.disabled = true;
        deletePushSubscription(s.vehicleId, s.appId).then(
          () => refreshSubscriptions(),
          (err: unknown) => {
            remove.disabled = false;
            setText(subsError, `The subscription could not be deleted: ${errorText(err)}`);
            subsError.hidden = false;
          },
        );
      },
    });
    return tr;
  }

  async function refreshSubscriptions(): Promise<void> {
    try {
      const list = await pushSubscriptions();
      if (!alive) return;
      subsError.hidden = true;
      replace(
        subsBody,
        ...(list.length
          ? list.map(subscriptionRow)
          : [
              h(
                'tr',
                { 'data-testid': 'push-subs-empty' },
                h('td', { colspan: 6, class: 'muted' }, 'No app has subscribed yet: an app subscribes when you turn its notifications on.'),
              ),
            ]),
      );
    } catch (err) {
      if (!alive) return;
      setText(subsError, `The subscriptions could not be loaded: ${errorText(err)}`);
      subsError.hidden = false;
    }
  }

  // --- the user's own targets ---
  const targetsError = h('p', { class: 'error', role: 'alert', hidden: true });
  const targetsBody = h('tbody', {});
  const targetsTable = h(
    'table',
    { class: 'push-targets responsive', 'data-testid': 'push-targets' },
    h('caption', { class: 'visually-hidden' }, 'Your notification targets'),
    h('thead', {}, h('tr', {}, ...['Kind', 'URL', 'Signed', 'Last result', ''].map((c) => h('th', { scope: 'col' }, c)))),
    targetsBody,
  );

  const kind = h(
    'select',
    { name: 'kind', 'data-testid': 'push-target-kind' },
    h('option', { value: 'webhook', selected: true }, 'Webhook'),
    h('option', { value: 'ntfy' }, 'ntfy topic'),
  );
  const url = h('input', {
    type: 'url',
    name: 'url',
    required: true,
    maxlength: 2048,
    autocapitalize: 'none',
    spellcheck: 'false',
    placeholder: PLACEHOLDER.webhook,
    'data-testid': 'push-target-url',
  });
  const secret = h('input', {
    type: 'text',
    name: 'secret',
    maxlength: 256,
    autocomplete: 'off',
    autocapitalize: 'none',
    spellcheck: 'false',
    'data-testid': 'push-target-secret',
  });
  const secretField = field('Secret (optional)', secret, 'the receiver checks the signature with it; vts never shows it again');
  const help = h('p', { class: 'hint push-help', 'data-testid': 'push-target-help' }, HELP.webhook);
  const add = h('button', { type: 'submit', 'data-testid': 'push-target-add' }, 'Add target');
  const addError = h('p', { class: 'error', role: 'alert', hidden: true, 'data-testid': 'push-target-error' });
  const form = h(
    'form',
    { class: 'grid-form', novalidate: true },
    field('Kind', kind),
    field('URL', url),
    secretField,
    h('div', { class: 'form-actions' }, add),
  );

  function selectedKind(): TargetKind {
    return kind.value === 'ntfy' ? 'ntfy' : 'webhook';
  }

  function showKind(): void {
    const k = selectedKind();
    secretField.hidden = k !== 'webhook';
    url.placeholder = PLACEHOLDER[k];
    setText(help, HELP[k]);
  }

  function targetRow(t: NotifyTargetRow): HTMLTableRowElement {
    const remove = h('button', { type: 'button', class: 'danger small', 'data-testid': 'push-target-remove' }, 'Remove');
    const tr = h(
      'tr',
      { 'data-testid': 'push-target-row', 'data-target': t.id, 'data-kind': t.kind },
      h('td', { 'data-label': 'Kind' }, channelLabel(t.kind)),
      h('td', { 'data-label': 'URL' }, h('code', { class: 'push-url' }, t.url)),
      h('td', { 'data-label': 'Signed' }, t.kind === 'webhook' ? (t.signed ? 'yes' : 'no') : h('span', { class: 'muted' }, '—')),
      h('td', { 'data-label': 'Last result', 'data-testid': 'push-target-result' }, lastResult(t.lastResult, t.lastTime)),
      h('td', {}, remove),
    );
    on(remove, {
      click: () => {
        if (!window.confirm(`Remove the ${t.kind} target ${t.url}? It gets no more notifications.`)) return;
        remove.disabled = true;
        removeNotifyTarget(t.id).then(
          () => refreshTargets(),
          (err: unknown) => {
            remove.disabled = false;
            setText(targetsError, `The target could not be removed: ${errorText(err)}`);
            targetsError.hidden = false;
          },
        );
      },
    });
    return tr;
  }

  async function refreshTargets(): Promise<void> {
    try {
      const list = await notifyTargets();
      if (!alive) return;
      targetsError.hidden = true;
      replace(
        targetsBody,
        ...(list.length
          ? list.map(targetRow)
          : [
              h(
                'tr',
                { 'data-testid': 'push-targets-empty' },
                h('td', { colspan: 5, class: 'muted' }, 'No targets: add a webhook or an ntfy topic to get the alerts without the app.'),
              ),
            ]),
      );
    } catch (err) {
      if (!alive) return;
      setText(targetsError, `The targets could not be loaded: ${errorText(err)}`);
      targetsError.hidden = false;
    }
  }

  on(kind, { change: showKind });
  on(form, {
    submit: (ev) => {
      ev.preventDefault();
      addError.hidden = true;
      const k = selectedKind();
      const u = url.value.trim();
      if (u === '') {
        setText(addError, k === 'ntfy' ? 'Enter the URL of the ntfy topic.' : 'Enter the URL of the webhook.');
        addError.hidden = false;
        url.focus();
        return;
      }
      add.disabled = true;
      addNotifyTarget(k, u, k === 'webhook' ? secret.value : '')
        .then(() => {
          if (!alive) return;
          url.value = '';
          secret.value = '';
          return refreshTargets();
        })
        .catch((err: unknown) => {
          setText(addError, `The target could not be added: ${errorText(err)}`);
          addError.hidden = false;
        })
        .finally(() => {
          add.disabled = false;
        });
    },
  });

  void refreshSubscriptions();
  void refreshTargets();
  const el = h(
    'section',
    { class: 'card', 'aria-labelledby': 'push-title', 'data-testid': 'push-section' },
    h('h2', { id: 'push-title' }, 'Push notifications'),
    h(
      'p',
      { class: 'muted' },
      'Alerts of your vehicles (charging stopped, alarm, 12 V battery low…) go to the apps that subscribed and to your own targets. Each vehicle’s Notifications tab shows what was delivered.',
    ),
    h('h3', {}, 'Apps'),
    subsError,
    h('div', { class: 'table-wrap' }, subsTable),
    h('h3', {}, 'Your targets'),
    targetsError,
    h('div', { class: 'table-wrap' }, targetsTable),
    h('h3', {}, 'New target'),
    form,
    help,
    addError,
  );
  return {
    el,
    destroy: () => {
      alive = false;
    },
  };
}
