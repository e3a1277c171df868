/**
 * Sign-in: user name and password → `POST /api/session`; then the code of the second factor when
 * the account asks for one, or a passkey instead of both (sign-in-factors.ts).
 */
import { ApiError, signIn } from '../api';
import { accountOptions } from '../account-api';
import { field, h, on, setText } from '../dom';
import type { Page } from '../router';
import { codeStep, passkeySignIn } from './sign-in-factors';

export interface LoginOptions {
  /** a note to show above the form (signed out, session ended) */
  note: string;
  /** the user name to start with (after a session ended) */
  username: string;
  onSignedIn: () => void;
}

export function loginPage(opts: LoginOptions): Page {
  const username = h('input', {
    type: 'text',
    name: 'username',
    autocomplete: 'username',
    required: true,
    autocapitalize: 'none',
    spellcheck: 'false',
    'data-testid': 'login-username',
    value: opts.username,
  });
  const password = h('input', {
    type: 'password',
    name: 'password',
    autocomplete: 'current-password',
    required: true,
    'data-testid': 'login-password',
  });
  const submit = h('button', { type: 'submit', 'data-testid': 'login-submit' }, 'Sign in');
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'login-error', hidden: true });
  const note = h('p', { class: 'note', role: 'status' }, opts.note);
  note.hidden = opts.note === '';

  const code = codeStep();
  // another user name or password: the code step starts over
  for (const input of [username, password]) on(input, { input: () => code.shown && code.reset() });
  const form = on(
    h('form', { class: 'stack', novalidate: true }, field('User name', username), field('Password', password), code.el, error, submit),
    {
      submit: (ev) => {
        ev.preventDefault();
        void attempt();
      },
    },
  );

  async function attempt(): Promise<void> {
    error.hidden = true;
    if (username.value.trim() === '' || password.value === '') {
      showError('Enter your user name and password.');
      return;
    }
    if (code.shown && code.input.value.trim() === '') {
      showError('Enter the code.');
      code.input.focus();
      return;
    }
    submit.disabled = true;
    setText(submit, 'Signing in…');
    try {
      await signIn(username.value.trim(), password.value, code.shown ? code.input.value.trim() : undefined);
      password.value = '';
      opts.onSignedIn();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'VTS_ERR_TOTP_REQUIRED') {
        code.show();
      } else if (err instanceof ApiError && err.code === 'VTS_ERR_TOTP_INVALID') {
        showError(err.message);
        code.input.select();
      } else {
        showError(err instanceof ApiError ? err.message : 'Signing in failed.');
        resendHint.hidden = !(err instanceof ApiError && err.code === 'VTS_ERR_UNVERIFIED');
        password.select();
      }
    } finally {
      submit.disabled = false;
      setText(submit, 'Sign in');
    }
  }

  function showError(text: string): void {
    setText(error, text);
    error.hidden = false;
  }

  // sign-up and recovery, when the server offers them (GET /api/account/options)
  const resendHint = h('p', { class: 'small', hidden: true, 'data-testid': 'login-resend' }, h('a', { href: '#/verify' }, 'Mail me a new confirmation link'));
  const links = h('p', { class: 'login-links small', 'data-testid': 'login-links' });
  void accountOptions().then((o) => {
    const items: HTMLElement[] = [];
    if (o.mail) items.push(h('a', { href: '#/reset', 'data-testid': 'login-forgot' }, 'Forgot password?'));
    if (o.registration !== 'off') items.push(h('a', { href: '#/signup', 'data-testid': 'login-signup' }, 'Create an account'));
    links.replaceChildren(...items.flatMap((a, i) => (i === 0 ? [a] : [document.createTextNode(' · '), a])));
  });
  const el = h('section', { class: 'card narrow login' }, h('h1', {}, 'Sign in to vts'), note, form, passkeySignIn(opts.onSignedIn, showError), resendHint, links);
  queueMicrotask(() => (opts.username ? password : username).focus());
  return { el, title: 'Sign in' };
}
