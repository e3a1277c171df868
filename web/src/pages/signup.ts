/**
 * Sign-up and recovery without a session (docs/accounts.md "Sign-up and recovery"): the sign-up
 * form (`#/signup`), the page of a mailed verification link (`#/verify?token=…`: posts the token,
 * or without one offers a new link), and the password reset (`#/reset`: asks for the address;
 * `#/reset?token=…`: sets the new password). Each ends with a link back to the sign-in.
 */
import { ApiError } from '../api';
import { accountOptions, confirmReset, requestReset, resendVerification, signUp, verifyAccount } from '../account-api';
import { field, h, on, replace, setText } from '../dom';
import type { Page } from '../router';
import { emailProblem } from '../../../src/core/auth/email-rule';
import { USER_NAME } from '../../../src/core/auth/identifier-rules';
import { MIN_PASSWORD_LENGTH, passwordProblem } from '../../../src/core/auth/password-rule';

const signInLink = (text = 'Back to the sign-in') => h('a', { href: '#/login', 'data-testid': 'to-login' }, text);

const sentence = (s: string) => (s === '' ? s : `${s.charAt(0).toUpperCase()}${s.slice(1)}.`);

/** A card with a title, a message line and a form of `fields`; `run` answers what to say when done. */
function formCard(o: {
  title: string;
  intro: string;
  testid: string;
  fields: HTMLElement[];
  submit: string;
  busy: string;
  check: () => string | null;
  run: () => Promise<HTMLElement>;
  after?: HTMLElement[];
}): HTMLElement {
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': `${o.testid}-error`, hidden: true });
  const button = h('button', { type: 'submit', 'data-testid': `${o.testid}-submit` }, o.submit);
  const card = h('section', { class: 'card narrow login', 'data-testid': o.testid });
  const form = on(h('form', { class: 'stack', novalidate: true }, ...o.fields, error, button), {
    submit: (ev) => {
      ev.preventDefault();
      void go();
    },
    // a message about what was typed goes once it is being changed
    input: () => {
      error.hidden = true;
    },
  });
  async function go(): Promise<void> {
    error.hidden = true;
    const wrong = o.check();
    if (wrong) return show(wrong);
    button.disabled = true;
    setText(button, o.busy);
    try {
      const done = await o.run();
      replace(card, h('h1', {}, o.title), done, h('p', {}, signInLink()));
    } catch (err) {
      show(err instanceof ApiError ? err.message : 'That failed. Try again.');
    } finally {
      button.disabled = false;
      setText(button, o.submit);
    }
  }
  function show(text: string): void {
    setText(error, text);
    error.hidden = false;
  }
  replace(card, h('h1', {}, o.title), h('p', { class: 'muted' }, o.intro), form, ...(o.after ?? [h('p', { class: 'small' }, signInLink())]));
  return card;
}

const input = (attrs: Record<string, string | boolean>) => h('input', { required: true, ...attrs });

const done = (testid: string, ...lines: string[]) => h('div', { 'data-testid': testid, role: 'status' }, ...lines.map((l, i) => h('p', i === 0 ? { class: 'note' } : {}, l)));

export function signupPage(): Page {
  const username = input({ type: 'text', name: 'username', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false', maxlength: '60', 'data-testid': 'signup-username' });
  const email = input({ type: 'email', name: 'email', autocomplete: 'email', maxlength: '254', 'data-testid': 'signup-email' });
  const password = input({ type: 'password', name: 'password', autocomplete: 'new-password', minlength: String(MIN_PASSWORD_LENGTH), 'data-testid': 'signup-password' });
  const invite = h('input', { type: 'text', name: 'invite', autocomplete: 'off', spellcheck: 'false', 'data-testid': 'signup-invite' });
  const inviteField = field('Invitation code', invite, 'From the server’s operator');
  inviteField.hidden = true;
  let mode: 'off' | 'open' | 'invite' = 'open';
  const el = h('div', {});
  const card = formCard({
    title: 'Create an account',
    intro: 'We mail you a link to confirm the address; the account works once you follow it.',
    testid: 'signup',
    fields: [
      field('User name', username, 'Letters, digits and . _ @ - (up to 60)'),
      field('Mail address', email),
      field('Password', password, `${MIN_PASSWORD_LENGTH} characters at least`),
      inviteField,
    ],
    submit: 'Create the account',
    busy: 'Creating…',
    check: () => {
      if (!USER_NAME.test(username.value.trim())) return 'Choose a user name of 1 to 60 letters, digits and . _ @ -.';
      const e = emailProblem(email.value.trim());
      if (e) return sentence(e);
      const p = passwordProblem(password.value);
      if (p) return sentence(p);
      if (mode === 'invite' && invite.value.trim() === '') return 'Enter the invitation code you were given.';
      return null;
    },
    run: async () => {
      const address = email.value.trim();
      await signUp({ username: username.value.trim(), email: address, password: password.value, ...(mode === 'invite' ? { invite: invite.value.trim() } : {}) });
      password.value = '';
      return done(
        'signup-done',
        `Check your mail: we sent a link to ${address}.`,
        'Follow it within 48 hours to confirm the address, then sign in. No mail after a few minutes? Look in the spam folder, or ask for a new link on the sign-in page.',
      );
    },
    after: [h('p', { class: 'small' }, 'Have an account already? ', signInLink('Sign in'))],
  });
  replace(el, card);
  void accountOptions().then((o) => {
    mode = o.registration;
    inviteField.hidden = mode !== 'invite';
    if (mode === 'off') {
      replace(el, h('section', { class: 'card narrow login' }, h('h1', {}, 'Create an account'), h('p', {}, 'This server does not take new accounts. Ask its operator for one.'), h('p', {}, signInLink())));
    }
  });
  queueMicrotask(() => username.focus());
  return { el, title: 'Create an account' };
}

/** A form that mails a link to an address (a new verification link, or a reset link). */
function mailForm(kind: 'resend' | 'reset'): HTMLElement {
  const email = input({ type: 'email', name: 'email', autocomplete: 'email', maxlength: '254', 'data-testid': `${kind}-email` });
  queueMicrotask(() => email.focus());
  return formCard({
    title: kind === 'reset' ? 'Forgot your password?' : 'Confirm your mail address',
    intro: kind === 'reset' ? 'Enter the mail address of your account: we mail you a link to set a new password.' : 'Enter the address you signed up with: we mail you a new link to confirm it.',
    testid: kind,
    fields: [field('Mail address', email)],
    submit: kind === 'reset' ? 'Mail me a link' : 'Mail me a new link',
    busy: 'Sending…',
    check: () => {
      const e = emailProblem(email.value.trim());
      return e ? sentence(e) : null;
    },
    run: async () => {
      const address = email.value.trim();
      await (kind === 'reset' ? requestReset(address) : resendVerification(address));
      return done(
        `${kind}-done`,
        `If an account has the address ${address}, a mail with a link is on its way.`,
        kind === 'reset' ? 'The link works once, for one hour.' : 'The link works once, for 48 hours.',
      );
    },
  });
}

export function verifyPage(token: string): Page {
  if (token === '') return { el: mailForm('resend'), title: 'Confirm your mail address' };
  const status = h('p', { role: 'status', 'data-testid': 'verify-status' }, 'Confirming your mail address…');
  const el = h('section', { class: 'card narrow login', 'data-testid': 'verify' }, h('h1', {}, 'Confirm your mail address'), status);
  void verifyAccount(token).then(
    (r) => {
      replace(el, h('h1', {}, 'Address confirmed'), h('p', { class: 'note', role: 'status', 'data-testid': 'verify-done' }, `Thank you: the account ${r.user} is ready.`), h('p', {}, h('a', { href: '#/login', class: 'button-link', 'data-testid': 'to-login' }, 'Sign in')));
    },
    (err: unknown) => {
      replace(
        el,
        h('h1', {}, 'Confirm your mail address'),
        h('p', { class: 'error', role: 'alert', 'data-testid': 'verify-error' }, err instanceof ApiError ? err.message : 'That failed. Try again.'),
        h('p', {}, h('a', { href: '#/verify' }, 'Mail me a new link'), ' · ', signInLink('Sign in')),
      );
    },
  );
  return { el, title: 'Confirm your mail address' };
}

export function resetPage(token: string): Page {
  if (token === '') return { el: mailForm('reset'), title: 'Forgot your password?' };
  const password = input({ type: 'password', name: 'password', autocomplete: 'new-password', minlength: String(MIN_PASSWORD_LENGTH), 'data-testid': 'reset-password' });
  const again = input({ type: 'password', name: 'again', autocomplete: 'new-password', 'data-testid': 'reset-again' });
  queueMicrotask(() => password.focus());
  const el = formCard({
    title: 'Set a new password',
    intro: 'Every device signed in to the account is signed out then.',
    testid: 'reset-confirm',
    fields: [field('New password', password, `${MIN_PASSWORD_LENGTH} characters at least`), field('The new password again', again)],
    submit: 'Set the password',
    busy: 'Setting…',
    check: () => {
      const p = passwordProblem(password.value);
      if (p) return sentence(p);
      return password.value === again.value ? null : 'The two passwords differ.';
    },
    run: async () => {
      const r = await confirmReset(token, password.value);
      password.value = '';
      again.value = '';
      return done('reset-confirm-done', `The password of ${r.user} is set. Sign in with it.`);
    },
  });
  return { el, title: 'Set a new password' };
}
