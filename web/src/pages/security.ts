/**
 * Account / Security (docs/accounts.md "A second factor"): the authenticator app (TOTP: QR code and
 * secret, a first code, the recovery codes shown once; turn off with a code), passkeys (add, list,
 * rename, remove) and whether the account password logs in on the API v2, MP and MQTT. Used by
 * account.ts.
 */
import QRCode from 'qrcode';
import { ApiError } from '../api';
import { field, h, on, replace, setText } from '../dom';
import { utcText } from '../format';
import {
  account,
  addPasskey,
  beginTotp,
  confirmTotp,
  disableTotp,
  passkeys,
  passkeysSupported,
  removePasskey,
  renamePasskey,
  setApiPasswords,
  type AccountInfo,
  type PasskeyRow,
} from '../security-api';
import '../security.css';

/** Copies text to the clipboard, else selects it for Ctrl+C (the Clipboard API needs a secure context). */
async function copyText(text: string, fallbackSelect: HTMLElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const range = document.createRange();
    range.selectNodeContents(fallbackSelect);
    window.getSelection()?.removeAllRanges();
    window.getSelection()?.addRange(range);
    return false;
  }
}

function errorText(err: unknown): string {
  if (err instanceof ApiError && err.code === 'VTS_ERR_FORBIDDEN') return 'Sign in with your password (not an API token) to change this.';
  return err instanceof ApiError ? err.message : String(err);
}

function message(): { el: HTMLParagraphElement; say: (text: string, ok: boolean) => void; clear: () => void } {
  const el = h('p', { class: 'message', role: 'status', hidden: true });
  return {
    el,
    say(text, ok) {
      setText(el, text);
      el.className = ok ? 'message success' : 'message error';
      el.hidden = false;
    },
    clear() {
      el.hidden = true;
    },
  };
}

const codeInput = (testid: string, recovery = false) =>
  h('input', {
    type: 'text',
    inputmode: recovery ? 'text' : 'numeric',
    autocomplete: 'one-time-code',
    maxlength: recovery ? 20 : 7,
    autocapitalize: 'none',
    spellcheck: 'false',
    'data-testid': testid,
  });

/** The secret in groups of four, as people type it into an app. */
const grouped = (secret: string) => secret.replace(/(.{4})/g, '$1 ').trim();

/** The authenticator app part: its state decides what it shows. */
function totpPart(reload: () => void): { el: HTMLElement; show: (a: AccountInfo) => void } {
  const body = h('div', { class: 'stack' });
  const status = h('span', { class: 'badge', 'data-testid': 'totp-status' });
  const el = h('div', { class: 'security-part' }, h('div', { class: 'part-head' }, h('h3', {}, 'Authenticator app'), status), body);

  function showOff(): void {
    setText(status, 'Off');
    status.className = 'badge off';
    const start = h('button', { type: 'button', 'data-testid': 'totp-begin' }, 'Set up an authenticator app');
    const msg = message();
    on(start, {
      click: () => {
        start.disabled = true;
        beginTotp().then(
          (t) => showEnrol(t.secret, t.uri),
          (err: unknown) => {
            start.disabled = false;
            msg.say(`It could not be set up: ${errorText(err)}`, false);
          },
        );
      },
    });
    replace(
      body,
      h('p', { class: 'muted' }, 'Ask for a 6-digit code from an app (Aegis, Google Authenticator, 1Password…) each time you sign in with your password.'),
      msg.el,
      h('div', { class: 'form-actions' }, start),
    );
  }

  function showEnrol(secret: string, uri: string): void {
    const qr = h('img', { class: 'qr', alt: 'QR code of the authenticator secret', width: 200, height: 200, 'data-testid': 'totp-qr' });
    QRCode.toDataURL(uri, { margin: 1, width: 200, errorCorrectionLevel: 'M' }).then(
      (url) => (qr.src = url),
      () => (qr.alt = 'The QR code could not be drawn: type the key below.'),
    );
    const code = codeInput('totp-confirm-code');
    const confirm = h('button', { type: 'submit', 'data-testid': 'totp-confirm' }, 'Turn on');
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    const msg = message();
    on(cancel, { click: () => showOff() });
    const form = on(
      h(
        'form',
        { class: 'stack narrow-form', novalidate: true },
        field('Code shown by the app', code, '6 digits; a new one every 30 seconds'),
        msg.el,
        h('div', { class: 'form-actions' }, confirm, cancel),
      ),
      {
        submit: (ev) => {
          ev.preventDefault();
          if (!/^\d{6}$/.test(code.value.replace(/\s/g, ''))) return msg.say('Enter the 6 digits the app shows.', false);
          confirm.disabled = true;
          confirmTotp(code.value.replace(/\s/g, '')).then(
            (r) => showCodes(r.recoveryCodes),
            (err: unknown) => {
              confirm.disabled = false;
              msg.say(errorText(err), false);
              code.select();
            },
          );
        },
      },
    );
    replace(
      body,
      h('ol', { class: 'steps' }, h('li', {}, 'Scan the QR code with the app, or type the key into it.'), h('li', {}, 'Enter the code the app shows to turn it on.')),
      h(
        'div',
        { class: 'enrol' },
        qr,
        h('div', { class: 'stack' }, h('span', { class: 'field-label' }, 'Key'), h('code', { class: 'secret', 'data-testid': 'totp-secret', 'data-secret': secret }, grouped(secret)), form),
      ),
    );
    code.focus();
  }

  function showCodes(codes: string[]): void {
    setText(status, 'On');
    status.className = 'badge on';
    const list = h('ol', { class: 'recovery-codes', 'data-testid': 'totp-recovery-codes' }, ...codes.map((c) => h('li', {}, h('code', {}, c))));
    const copy = h('button', { type: 'button', class: 'secondary', 'data-testid': 'totp-copy-codes' }, 'Copy');
    const copied = h('span', { class: 'muted', role: 'status' });
    const done = h('button', { type: 'button', 'data-testid': 'totp-codes-done' }, 'I have saved them');
    on(copy, {
      click: () => {
        void copyText(codes.join('\n'), list).then((ok) => setText(copied, ok ? 'Copied.' : 'Selected: copy with Ctrl+C.'));
      },
    });
    on(done, { click: () => reload() });
    replace(
      body,
      h('p', { class: 'success' }, 'The authenticator app is on: signing in with your password now asks for its code.'),
      h('p', { class: 'warning' }, 'Save these recovery codes somewhere safe. Each one signs you in once if you lose the app. They are shown only now.'),
      list,
      h('div', { class: 'secret-line' }, copy, done, copied),
    );
  }

  function showOn(a: AccountInfo): void {
    setText(status, 'On');
    status.className = 'badge on';
    const code = codeInput('totp-disable-code', true);
    const off = h('button', { type: 'submit', class: 'danger', 'data-testid': 'totp-disable' }, 'Turn off');
    const msg = message();
    const form = on(
      h('form', { class: 'grid-form narrow-form inline-form', novalidate: true }, field('Code or recovery code', code), h('div', { class: 'form-actions' }, off)),
      {
        submit: (ev) => {
          ev.preventDefault();
          if (code.value.trim() === '') return msg.say('Enter a code of the app or a recovery code.', false);
          off.disabled = true;
          disableTotp(code.value.trim()).then(
            () => reload(),
            (err: unknown) => {
              off.disabled = false;
              msg.say(errorText(err), false);
            },
          );
        },
      },
    );
    const left = a.recoveryCodesLeft;
    replace(
      body,
      h('p', {}, 'Signing in with your password asks for the code of your app. ', h('span', { class: left < 3 ? 'warn' : 'muted' }, `${left} recovery code${left === 1 ? '' : 's'} left.`)),
      form,
      msg.el,
    );
  }

  return { el, show: (a) => (a.totpEnabled ? showOn(a) : showOff()) };
}

function passkeysPart(reload: () => void): { el: HTMLElement; show: (list: PasskeyRow[]) => void } {
  const list = h('ul', { class: 'passkeys', 'data-testid': 'passkey-list' });
  const msg = message();
  const name = h('input', { type: 'text', maxlength: 64, placeholder: 'e.g. Laptop, Phone', 'data-testid': 'passkey-name' });
  const add = h('button', { type: 'submit', 'data-testid': 'passkey-add' }, 'Add a passkey');
  const supported = passkeysSupported();
  const form = on(h('form', { class: 'grid-form inline-form', novalidate: true }, field('Name of a new passkey', name), h('div', { class: 'form-actions' }, add)), {
    submit: (ev) => {
      ev.preventDefault();
      add.disabled = true;
      msg.clear();
      addPasskey(name.value.trim() || 'Passkey')
        .then(() => {
          name.value = '';
          msg.say('Passkey added: use it on the sign-in page.', true);
          reload();
        })
        .catch((err: unknown) => {
          if (err instanceof Error && err.name === 'NotAllowedError') return msg.say('No passkey was made (the browser’s dialog was closed).', false);
          if (err instanceof Error && err.name === 'InvalidStateError') return msg.say('This device holds a passkey of this account already.', false);
          msg.say(`The passkey could not be added: ${errorText(err)}`, false);
        })
        .finally(() => {
          add.disabled = false;
        });
    },
  });

  function item(p: PasskeyRow): HTMLLIElement {
    const label = h('span', { class: 'passkey-name' }, p.name);
    const rename = h('button', { type: 'button', class: 'secondary small', 'data-testid': 'passkey-rename' }, 'Rename');
    const remove = h('button', { type: 'button', class: 'danger small', 'data-testid': 'passkey-remove' }, 'Remove');
    on(rename, {
      click: () => {
        const next = window.prompt('A new name for this passkey', p.name)?.trim();
        if (!next || next === p.name) return;
        renamePasskey(p.id, next).then(
          () => reload(),
          (err: unknown) => msg.say(errorText(err), false),
        );
      },
    });
    on(remove, {
      click: () => {
        if (!window.confirm(`Remove the passkey “${p.name}”? It will no longer sign you in.`)) return;
        remove.disabled = true;
        removePasskey(p.id).then(
          () => reload(),
          (err: unknown) => {
            remove.disabled = false;
            msg.say(errorText(err), false);
          },
        );
      },
    });
    return h(
      'li',
      { 'data-testid': 'passkey-row' },
      h('div', { class: 'cell' }, label, h('span', { class: 'sub' }, `Added ${utcText(p.created)} · ${p.lastUsed ? `last used ${utcText(p.lastUsed)}` : 'not used yet'}`)),
      h('div', { class: 'row-actions' }, rename, remove),
    );
  }

  const el = h(
    'div',
    { class: 'security-part' },
    h('div', { class: 'part-head' }, h('h3', {}, 'Passkeys')),
    h('p', { class: 'muted' }, 'Sign in with your device’s screen lock or a security key instead of the password and code.'),
    list,
    supported ? form : h('p', { class: 'warning' }, 'This browser cannot make passkeys.'),
    msg.el,
  );
  return {
    el,
    show(rows) {
      if (rows.length === 0) replace(list, h('li', { class: 'muted empty' }, 'No passkeys yet.'));
      else replace(list, ...rows.map(item));
    },
  };
}

function apiPasswordsPart(): { el: HTMLElement; show: (a: AccountInfo) => void } {
  const box = h('input', { type: 'checkbox', 'data-testid': 'api-passwords' });
  const msg = message();
  on(box, {
    change: () => {
      const want = box.checked;
      box.disabled = true;
      setApiPasswords(want).then(
        (a) => {
          box.checked = a.apiPasswords;
          msg.say(a.apiPasswords ? 'Apps and modules may log in with the password again.' : 'Apps and modules now need an API token.', true);
        },
        (err: unknown) => {
          box.checked = !want;
          msg.say(errorText(err), false);
        },
      ).finally(() => {
        box.disabled = false;
      });
    },
  });
  const el = h(
    'div',
    { class: 'security-part' },
    h('div', { class: 'part-head' }, h('h3', {}, 'API password logins')),
    h(
      'label',
      { class: 'check' },
      box,
      h('span', {}, 'Apps, modules and MQTT clients may log in with the account password', h('small', { class: 'hint' }, 'Off: they need an API token (above). The dashboard always takes the password.')),
    ),
    msg.el,
  );
  return { el, show: (a) => (box.checked = a.apiPasswords) };
}

export function securitySection(): { el: HTMLElement; destroy: () => void } {
  let alive = true;
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const totp = totpPart(() => void refresh());
  const keys = passkeysPart(() => void refresh());
  const apiPasswords = apiPasswordsPart();
  async function refresh(): Promise<void> {
    try {
      const [a, list] = await Promise.all([account(), passkeys()]);
      if (!alive) return;
      error.hidden = true;
      totp.show(a);
      keys.show(list);
      apiPasswords.show(a);
    } catch (err) {
      if (!alive) return;
      setText(error, `The security settings could not be loaded: ${errorText(err)}`);
      error.hidden = false;
    }
  }
  void refresh();
  const el = h(
    'section',
    { class: 'card security', 'aria-labelledby': 'security-title', 'data-testid': 'security' },
    h('h2', { id: 'security-title' }, 'Security'),
    error,
    totp.el,
    keys.el,
    apiPasswords.el,
  );
  return {
    el,
    destroy: () => {
      alive = false;
    },
  };
}
