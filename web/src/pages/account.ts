/** Account: API tokens (list, create — shown once —, revoke), push notifications (push-section.ts), the password and the security settings (security.ts). */
import { ApiError, changePassword, createToken, currentUser, revokeToken, tokens } from '../api';
import { field, h, on, replace, setText } from '../dom';
import { utcText } from '../format';
import type { Page } from '../router';
import type { TokenRow } from '../types';
import { pushSection } from './push-section';
import { securitySection } from './security';
// the server's rule for account passwords (also `vts user add|passwd` and POST /api/password)
import { MIN_PASSWORD_LENGTH as MIN_PASSWORD } from '../../../src/core/auth/password-rule';

const DEFAULT_PERMIT = 'auth';

function errorText(err: unknown): string {
  return err instanceof ApiError ? err.message : String(err);
}

/** Copies text to the clipboard; false when the browser refuses (e.g. plain HTTP on a LAN). */
export async function copyText(text: string, fallbackSelect: HTMLElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const range = document.createRange();
    range.selectNodeContents(fallbackSelect);
    const sel = window.getSelection();
    sel?.removeAllRanges();
    sel?.addRange(range);
    // the deprecated command still works where the Clipboard API needs a secure context
    return document.execCommand('copy');
  }
}

function tokensSection(): { el: HTMLElement; destroy: () => void } {
  let alive = true;
  const listError = h('p', { class: 'error', role: 'alert', hidden: true });
  const tbody = h('tbody', {});
  const table = h(
    'table',
    { class: 'tokens responsive' },
    h('caption', { class: 'visually-hidden' }, 'Your API tokens'),
    h(
      'thead',
      {},
      h('tr', {}, ...['Application', 'Purpose', 'Rights', 'Created', 'Last used', 'Token hash', ''].map((c) => h('th', { scope: 'col' }, c))),
    ),
    tbody,
  );

  const application = h('input', { type: 'text', name: 'application', required: true, maxlength: 32, 'data-testid': 'token-application' });
  const purpose = h('input', { type: 'text', name: 'purpose', maxlength: 80, 'data-testid': 'token-purpose' });
  const permit = h('input', {
    type: 'text',
    name: 'permit',
    value: DEFAULT_PERMIT,
    list: 'permit-choices',
    autocapitalize: 'none',
    spellcheck: 'false',
    'data-testid': 'token-permit',
  });
  const choices = h(
    'datalist',
    { id: 'permit-choices' },
    ...['auth', 'auth,command', 'auth,session', 'v2', 'mqtt', 'token.admin', '*'].map((v) => h('option', { value: v })),
  );
  const create = h('button', { type: 'submit', 'data-testid': 'token-create' }, 'Create token');
  const createError = h('p', { class: 'error', role: 'alert', hidden: true });

  const newValue = h('code', { class: 'secret', 'data-testid': 'token-new-value' });
  const copyButton = h('button', { type: 'button' }, 'Copy');
  const copyStatus = h('span', { class: 'muted', role: 'status' });
  const dismiss = h('button', { type: 'button', class: 'secondary' }, 'Done');
  const newPanel = h(
    'div',
    { class: 'new-token', role: 'region', 'aria-label': 'New token', hidden: true },
    h('p', { class: 'warning' }, 'Copy this token now: it is shown only once. vts keeps only its hash and cannot show it again.'),
    h('div', { class: 'secret-line' }, newValue, copyButton, copyStatus),
    dismiss,
  );

  const form = h(
    'form',
    { class: 'grid-form' },
    field('Application', application, 'e.g. evcc, home-assistant'),
    field('Purpose', purpose),
    field('Rights', permit, 'auth = read the vehicles; add command, session… or * for everything'),
    choices,
    h('div', { class: 'form-actions' }, create),
  );

  function row(t: TokenRow): HTMLTableRowElement {
    const revoke = h('button', { type: 'button', class: 'danger small', 'data-testid': 'token-revoke' }, 'Revoke');
    const tr = h(
      'tr',
      { 'data-testid': 'token-row', 'data-token': t.token },
      h('td', { 'data-label': 'Application' }, t.application),
      h('td', { 'data-label': 'Purpose' }, t.purpose),
      h('td', { 'data-label': 'Rights' }, h('code', {}, t.permit)),
      h('td', { 'data-label': 'Created' }, utcText(t.created)),
      h('td', { 'data-label': 'Last used' }, utcText(t.lastused)),
      h('td', { 'data-label': 'Token hash' }, h('code', { title: t.token }, `${t.token.slice(0, 12)}…`)),
      h('td', {}, revoke),
    );
    on(revoke, {
      click: () => {
        const what = t.application ? `the token of “${t.application}”` : 'this token';
        if (!window.confirm(`Revoke ${what}? Tools that use it will stop working.`)) return;
        revoke.disabled = true;
        revokeToken(t.token).then(
          () => refresh(),
          (err: unknown) => {
            revoke.disabled = false;
            setText(listError, `The token could not be revoked: ${errorText(err)}`);
            listError.hidden = false;
          },
        );
      },
    });
    return tr;
  }

  async function refresh(): Promise<void> {
    try {
      const list = await tokens();
      if (!alive) return;
      listError.hidden = true;
      replace(
        tbody,
        ...(list.length ? list.map(row) : [h('tr', {}, h('td', { colspan: 7, class: 'muted' }, 'No API tokens.'))]),
      );
    } catch (err) {
      if (!alive) return;
      setText(listError, `The tokens could not be loaded: ${errorText(err)}`);
      listError.hidden = false;
    }
  }

  on(form, {
    submit: (ev) => {
      ev.preventDefault();
      createError.hidden = true;
      const app = application.value.trim();
      if (app === '') {
        setText(createError, 'Name the application that will use the token.');
        createError.hidden = false;
        application.focus();
        return;
      }
      create.disabled = true;
      createToken(app, purpose.value.trim() || 'notspecified', permit.value.trim() || DEFAULT_PERMIT)
        .then((t) => {
          if (!alive) return;
          setText(newValue, t.token);
          setText(copyStatus, '');
          newPanel.hidden = false;
          application.value = '';
          purpose.value = '';
          permit.value = DEFAULT_PERMIT;
          copyButton.focus();
          return refresh();
        })
        .catch((err: unknown) => {
          setText(createError, `The token could not be created: ${errorText(err)}`);
          createError.hidden = false;
        })
        .finally(() => {
          create.disabled = false;
        });
    },
  });
  on(copyButton, {
    click: () => {
      void copyText(newValue.textContent ?? '', newValue).then((ok) =>
        setText(copyStatus, ok ? 'Copied.' : 'Copying failed: select the token and copy it by hand.'),
      );
    },
  });
  on(dismiss, {
    click: () => {
      newValue.textContent = '';
      newPanel.hidden = true;
    },
  });

  void refresh();
  const el = h(
    'section',
    { class: 'card', 'aria-labelledby': 'tokens-title' },
    h('h2', { id: 'tokens-title' }, 'API tokens'),
    h('p', { class: 'muted' }, 'Tokens let tools (evcc, Home Assistant, scripts) use the API without your password. A token can do only what its rights allow.'),
    listError,
    h('div', { class: 'table-wrap' }, table),
    h('h3', {}, 'New token'),
    form,
    createError,
    newPanel,
  );
  return {
    el,
    destroy: () => {
      alive = false;
    },
  };
}

function passwordSection(): HTMLElement {
  const current = h('input', { type: 'password', name: 'current', autocomplete: 'current-password', required: true, 'data-testid': 'password-current' });
  const next = h('input', {
    type: 'password',
    name: 'new',
    autocomplete: 'new-password',
    required: true,
    minlength: MIN_PASSWORD,
    'data-testid': 'password-new',
  });
  const repeat = h('input', { type: 'password', name: 'repeat', autocomplete: 'new-password', required: true, 'data-testid': 'password-repeat' });
  const submit = h('button', { type: 'submit', 'data-testid': 'password-submit' }, 'Change password');
  const message = h('p', { class: 'message', role: 'status', 'data-testid': 'password-message', hidden: true });

  function say(text: string, ok: boolean): void {
    setText(message, text);
    message.className = ok ? 'message success' : 'message error';
    message.hidden = false;
  }

  const form = on(
    h(
      'form',
      { class: 'stack narrow-form', novalidate: true },
      // for password managers: which account this is
      h('input', { type: 'text', name: 'username', autocomplete: 'username', value: currentUser() ?? '', hidden: true, 'aria-hidden': 'true' }),
      field('Current password', current),
      field('New password', next, `${MIN_PASSWORD} characters at least`),
      field('Repeat the new password', repeat),
      message,
      h('div', { class: 'form-actions' }, submit),
    ),
    {
      submit: (ev) => {
        ev.preventDefault();
        if (current.value === '') return say('Enter your current password.', false);
        if (next.value.length < MIN_PASSWORD) return say(`The new password needs ${MIN_PASSWORD} characters at least.`, false);
        if (next.value !== repeat.value) return say('The two new passwords differ.', false);
        if (next.value === current.value) return say('The new password is the same as the current one.', false);
        submit.disabled = true;
        changePassword(current.value, next.value)
          .then(() => {
            current.value = next.value = repeat.value = '';
            say('Password changed.', true);
          })
          .catch((err: unknown) => {
            if (err instanceof ApiError && err.status === 403 && /token/i.test(err.detail)) {
              say('A session opened with an API token cannot change the password: sign in with the password.', false);
            } else if (err instanceof ApiError && err.status === 403) say('The current password is wrong.', false);
            else if (err instanceof ApiError && err.status === 400) say(`The new password was refused: ${err.detail || err.message}`, false);
            else say(`The password could not be changed: ${errorText(err)}`, false);
          })
          .finally(() => {
            submit.disabled = false;
          });
      },
    },
  );

  return h('section', { class: 'card', 'aria-labelledby': 'password-title' }, h('h2', { id: 'password-title' }, 'Password'), form);
}

export function accountPage(): Page {
  const tokenPart = tokensSection();
  const pushPart = pushSection();
  const securityPart = securitySection();
  const el = h(
    'section',
    { class: 'page account' },
    h('div', { class: 'page-head' }, h('h1', {}, 'Account')),
    tokenPart.el,
    pushPart.el,
    passwordSection(),
    securityPart.el,
  );
  return {
    el,
    title: 'Account',
    destroy: () => {
      tokenPart.destroy();
      pushPart.destroy();
      securityPart.destroy();
    },
  };
}
