/**
 * The sign-in page's second factors (login.ts): the code step that follows a right password when
 * the account has TOTP (`VTS_ERR_TOTP_REQUIRED`), with "use a recovery code" instead, and the
 * "Sign in with a passkey" button.
 */
import { ApiError } from '../api';
import { field, h, on, setText } from '../dom';
import { passkeysSupported, signInWithPasskey } from '../security-api';
import '../security.css';

export interface CodeStep {
  el: HTMLElement;
  input: HTMLInputElement;
  /** Shows the step (after the password was right). */
  show(): void;
  /** Back to user name and password only. */
  reset(): void;
  readonly shown: boolean;
}

export function codeStep(): CodeStep {
  let recovery = false;
  let shown = false;
  const input = h('input', {
    type: 'text',
    name: 'code',
    inputmode: 'numeric',
    autocomplete: 'one-time-code',
    pattern: '[0-9 ]*',
    maxlength: 7,
    autocapitalize: 'none',
    spellcheck: 'false',
    'data-testid': 'login-code',
  });
  const label = field('Code from your authenticator app', input);
  const labelText = label.querySelector('.field-label')!;
  const toggle = h('button', { type: 'button', class: 'link', 'data-testid': 'login-use-recovery' }, 'Use a recovery code instead');
  const lead = h('p', { class: 'note' }, 'This account has a second factor. Enter the 6-digit code that your authenticator app shows for vts.');
  const el = h('div', { class: 'stack code-step', hidden: true, 'data-testid': 'login-code-step' }, lead, label, toggle);

  function mode(useRecovery: boolean): void {
    recovery = useRecovery;
    input.value = '';
    input.inputMode = recovery ? 'text' : 'numeric';
    input.maxLength = recovery ? 20 : 7;
    input.pattern = recovery ? '[A-Za-z0-9 -]*' : '[0-9 ]*';
    input.autocomplete = recovery ? 'off' : 'one-time-code';
    setText(labelText, recovery ? 'Recovery code' : 'Code from your authenticator app');
    setText(toggle, recovery ? 'Use the code of the app instead' : 'Use a recovery code instead');
    setText(lead, recovery ? 'Enter one of the recovery codes you saved when you turned the second factor on. Each works once.' : 'This account has a second factor. Enter the 6-digit code that your authenticator app shows for vts.');
    input.focus();
  }
  on(toggle, { click: () => mode(!recovery) });

  return {
    el,
    input,
    get shown() {
      return shown;
    },
    show() {
      shown = true;
      el.hidden = false;
      mode(false);
    },
    reset() {
      shown = false;
      el.hidden = true;
      input.value = '';
    },
  };
}

/** "Sign in with a passkey" (none where the browser has no WebAuthn). */
export function passkeySignIn(onSignedIn: () => void, showError: (text: string) => void): HTMLElement | null {
  if (!passkeysSupported()) return null;
  const button = h('button', { type: 'button', class: 'secondary passkey-button', 'data-testid': 'login-passkey' }, 'Sign in with a passkey');
  on(button, {
    click: () => {
      button.disabled = true;
      signInWithPasskey()
        .then(() => onSignedIn())
        .catch((err: unknown) => {
          // the person closed the browser's dialog: nothing to say
          if (err instanceof Error && err.name === 'NotAllowedError') return;
          showError(err instanceof ApiError ? err.message : 'Signing in with a passkey failed.');
        })
        .finally(() => {
          button.disabled = false;
        });
    },
  });
  return h('div', { class: 'passkey-signin' }, h('p', { class: 'divider' }, h('span', {}, 'or')), button);
}
