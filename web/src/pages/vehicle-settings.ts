/**
 * The Vehicles page's own parts (docs/accounts.md "Own vehicles", "Sharing"): "Add a vehicle" (id,
 * name, car password) and, per own vehicle, its settings: rename, a new car password, the users it
 * is shared with (add with view or control, revoke) and removing it after typing its id. Vehicles
 * shared with the user have no settings here (only their owner may change them).
 */
import { ApiError } from '../api';
import { field, h, on, replace, setText } from '../dom';
import { addVehicle, changeVehicle, ownVehicles, removeVehicle, revokeShare, share, shares, type OwnVehicle, type ShareAccess, type ShareRow } from '../sharing-api';
import { CAR_PASSWORD, MAX_VEHICLE_NAME, VEHICLE_ID } from '../../../src/core/auth/identifier-rules';

const errorText = (err: unknown): string => (err instanceof ApiError ? err.message : String(err));

/** A form's message line: an error (alert) or a confirmation (status). */
function note(): { el: HTMLElement; ok(text: string): void; fail(err: unknown): void; clear(): void } {
  const el = h('p', { class: 'form-note', hidden: true });
  return {
    el,
    ok(text) {
      el.className = 'form-note muted';
      el.setAttribute('role', 'status');
      replace(el, text);
      el.hidden = false;
    },
    fail(err) {
      el.className = 'form-note error';
      el.setAttribute('role', 'alert');
      replace(el, errorText(err));
      el.hidden = false;
    },
    clear() {
      el.hidden = true;
    },
  };
}

/** "Add a vehicle": calls `added` with the new vehicle. */
export function addVehicleForm(added: (v: OwnVehicle) => void): HTMLElement {
  const id = h('input', { type: 'text', name: 'id', required: true, maxlength: 32, pattern: VEHICLE_ID.source.slice(1, -1), autocapitalize: 'characters', spellcheck: 'false', 'data-testid': 'add-vehicle-id' });
  const name = h('input', { type: 'text', name: 'name', maxlength: MAX_VEHICLE_NAME, 'data-testid': 'add-vehicle-name' });
  const password = h('input', { type: 'password', name: 'car-password', required: true, maxlength: 255, autocomplete: 'new-password', 'data-testid': 'add-vehicle-password' });
  const submit = h('button', { type: 'submit', 'data-testid': 'add-vehicle-submit' }, 'Add vehicle');
  const msg = note();
  const form = h(
    'form',
    { class: 'grid-form', 'data-testid': 'add-vehicle-form' },
    field('Vehicle id', id, 'As set in the module (Config › Server V2/V3), e.g. DEMO1'),
    field('Name', name, 'Shown here, optional'),
    field('Car password', password, 'The server password the module is given'),
    h('div', { class: 'form-actions' }, submit),
  );
  on(form, {
    submit: (ev) => {
      ev.preventDefault();
      msg.clear();
      if (!CAR_PASSWORD.test(password.value)) return msg.fail('The car password must be 1–255 characters without spaces.');
      submit.disabled = true;
      addVehicle(id.value.trim(), password.value, name.value.trim()).then(
        (v) => {
          submit.disabled = false;
          form.reset();
          msg.ok(`Vehicle ${v.id} added. Give the module this server and the car password.`);
          added(v);
        },
        (err: unknown) => {
          submit.disabled = false;
          msg.fail(err);
        },
      );
    },
  });
  return h('details', { class: 'card add-vehicle', 'data-testid': 'add-vehicle' }, h('summary', {}, 'Add a vehicle'), form, msg.el);
}

function sharingPart(v: OwnVehicle): HTMLElement {
  const tbody = h('tbody', {});
  const table = h('table', { class: 'shares responsive' }, h('caption', { class: 'visually-hidden' }, `Users ${v.id} is shared with`), h('thead', {}, h('tr', {}, ...['User', 'Access', ''].map((c) => h('th', { scope: 'col' }, c)))), tbody);
  const none = h('p', { class: 'muted' }, 'Not shared with anyone.');
  const user = h('input', { type: 'text', name: 'user', required: true, maxlength: 60, autocapitalize: 'none', spellcheck: 'false', 'data-testid': 'share-user' });
  const access = h('select', { name: 'access', 'data-testid': 'share-access' }, h('option', { value: 'view' }, 'View'), h('option', { value: 'control' }, 'Control'));
  const submit = h('button', { type: 'submit', 'data-testid': 'share-submit' }, 'Share');
  const msg = note();
  const form = h(
    'form',
    { class: 'grid-form' },
    field('User', user, 'Their user name on this server'),
    field('Access', access, 'View: state, history, drives, charges. Control: also commands.'),
    h('div', { class: 'form-actions' }, submit),
  );

  function row(s: ShareRow): HTMLTableRowElement {
    const revoke = h('button', { type: 'button', class: 'danger small', 'data-testid': 'share-revoke' }, 'Revoke');
    on(revoke, {
      click: () => {
        if (!window.confirm(`Stop sharing ${v.id} with ${s.user}? Their connections to it end at once.`)) return;
        revoke.disabled = true;
        revokeShare(v.id, s.user).then(
          () => {
            msg.ok(`${s.user} no longer sees ${v.id}.`);
            void load();
          },
          (err: unknown) => {
            revoke.disabled = false;
            msg.fail(err);
          },
        );
      },
    });
    return h(
      'tr',
      { 'data-testid': 'share-row', 'data-user': s.user },
      h('td', { 'data-label': 'User' }, s.user),
      h('td', { 'data-label': 'Access' }, h('span', { class: `badge access-${s.access}` }, s.access === 'control' ? 'control' : 'view')),
      h('td', {}, h('div', { class: 'row-actions' }, revoke)),
    );
  }

  async function load(): Promise<void> {
    try {
      const list = await shares(v.id);
      replace(tbody, ...list.map(row));
      table.hidden = list.length === 0;
      none.hidden = list.length !== 0;
    } catch (err) {
      msg.fail(err);
    }
  }

  on(form, {
    submit: (ev) => {
      ev.preventDefault();
      msg.clear();
      submit.disabled = true;
      share(v.id, user.value.trim(), access.value as ShareAccess).then(
        (s) => {
          submit.disabled = false;
          form.reset();
          msg.ok(`Shared with ${s.user} (${s.access}).`);
          void load();
        },
        (err: unknown) => {
          submit.disabled = false;
          msg.fail(err);
        },
      );
    },
  });
  table.hidden = true;
  void load();
  return h('div', { class: 'settings-part', 'data-testid': 'sharing' }, h('h3', {}, 'Sharing'), none, table, form, msg.el);
}

function settings(v: OwnVehicle, changed: () => void): HTMLElement {
  const titleName = h('span', {}, v.name && v.name !== v.id ? `${v.name} ` : '');
  const title = h('span', {}, titleName, h('code', {}, v.id));
  const name = h('input', { type: 'text', name: 'name', value: v.name, maxlength: MAX_VEHICLE_NAME, 'data-testid': 'rename-name' });
  const rename = h('button', { type: 'submit', class: 'secondary' }, 'Rename');
  const renameMsg = note();
  const renameForm = h('form', { class: 'grid-form' }, field('Name', name), h('div', { class: 'form-actions' }, rename));
  on(renameForm, {
    submit: (ev) => {
      ev.preventDefault();
      rename.disabled = true;
      changeVehicle(v.id, { name: name.value.trim() }).then(
        (nv) => {
          rename.disabled = false;
          renameMsg.ok('Renamed.');
          setText(titleName, nv.name && nv.name !== nv.id ? `${nv.name} ` : '');
          changed();
        },
        (err: unknown) => {
          rename.disabled = false;
          renameMsg.fail(err);
        },
      );
    },
  });

  const password = h('input', { type: 'password', name: 'car-password', maxlength: 255, autocomplete: 'new-password', required: true, 'data-testid': 'car-password' });
  const setPassword = h('button', { type: 'submit', class: 'secondary' }, 'Set car password');
  const passwordMsg = note();
  const passwordForm = h('form', { class: 'grid-form' }, field('New car password', password, 'The module’s next login needs it: set it there too'), h('div', { class: 'form-actions' }, setPassword));
  on(passwordForm, {
    submit: (ev) => {
      ev.preventDefault();
      if (!CAR_PASSWORD.test(password.value)) return passwordMsg.fail('The car password must be 1–255 characters without spaces.');
      setPassword.disabled = true;
      changeVehicle(v.id, { password: password.value }).then(
        () => {
          setPassword.disabled = false;
          passwordForm.reset();
          passwordMsg.ok('Car password changed. Set the same one in the module.');
        },
        (err: unknown) => {
          setPassword.disabled = false;
          passwordMsg.fail(err);
        },
      );
    },
  });

  const confirm = h('input', { type: 'text', name: 'confirm', autocapitalize: 'characters', spellcheck: 'false', autocomplete: 'off', 'data-testid': 'remove-confirm' });
  const remove = h('button', { type: 'submit', class: 'danger', disabled: true, 'data-testid': 'remove-vehicle' }, 'Remove vehicle');
  const removeMsg = note();
  on(confirm, { input: () => void (remove.disabled = confirm.value.trim().toUpperCase() !== v.id) });
  const removeForm = h('form', { class: 'grid-form' }, field(`Type ${v.id} to confirm`, confirm, 'Removes the vehicle with all its data: history, drives, charges, alerts, shares'), h('div', { class: 'form-actions' }, remove));
  on(removeForm, {
    submit: (ev) => {
      ev.preventDefault();
      remove.disabled = true;
      removeVehicle(v.id).then(changed, (err: unknown) => {
        remove.disabled = false;
        removeMsg.fail(err);
      });
    },
  });

  return h(
    'details',
    { class: 'card vehicle-settings', 'data-testid': 'vehicle-settings', 'data-vehicle': v.id },
    h('summary', {}, title),
    h('div', { class: 'settings-part' }, h('h3', {}, 'Rename'), renameForm, renameMsg.el),
    h('div', { class: 'settings-part' }, h('h3', {}, 'Car password'), passwordForm, passwordMsg.el),
    sharingPart(v),
    h('div', { class: 'settings-part danger-zone' }, h('h3', {}, 'Remove'), removeForm, removeMsg.el),
  );
}

/** "Your vehicles' settings": one part per own vehicle; `changed` when one was renamed or removed (the list reloads). */
export function vehicleSettings(changed: () => void): { el: HTMLElement; reload(): void } {
  const list = h('div', { class: 'settings-list' });
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const el = h('section', { class: 'vehicle-settings-list', 'aria-label': 'Vehicle settings', hidden: true }, h('h2', {}, 'Settings and sharing'), error, list);
  const open = new Set<string>();
  async function reload(): Promise<void> {
    try {
      const own = (await ownVehicles()).filter((v) => v.access === 'owner');
      for (const d of list.querySelectorAll<HTMLDetailsElement>('details[data-vehicle]')) if (d.open) open.add(d.dataset.vehicle ?? '');
      replace(
        list,
        ...own.map((v) => {
          const part = settings(v, () => {
            changed();
            void reload();
          });
          if (open.has(v.id)) (part as HTMLDetailsElement).open = true;
          return part;
        }),
      );
      el.hidden = own.length === 0;
      error.hidden = true;
    } catch (err) {
      replace(error, `The vehicles' settings could not be loaded: ${errorText(err)}`);
      error.hidden = false;
    }
  }
  void reload();
  return { el, reload: () => void reload() };
}
