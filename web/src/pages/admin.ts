/**
 * The operator's page (admins only; docs/accounts.md "The operator's page"): tabs Users (this
 * file: search, disable, enable, verify, reset password, remove, each after a confirmation),
 * Vehicles, Server and Audit log (admin-lists.ts).
 */
import { currentUser } from '../api';
import { adminUsers, removeUser, resetPassword, userAction, type AdminUser, type UserAction } from '../admin-api';
import { h, on, replace, setText } from '../dom';
import { DASH, utcText } from '../format';
import { href, type AdminTab, type Page } from '../router';
import { copyText } from './account';
import { auditTab, serverTab, vehiclesTab } from './admin-lists';
import { cell, errorText, pager, PAGE_SIZE, searchBox, type Tab } from './admin-parts';

function badges(u: AdminUser): HTMLElement {
  const list = h('span', { class: 'admin-badges' });
  if (u.admin) list.append(h('span', { class: 'badge state-admin' }, 'admin'));
  if (u.disabled) list.append(h('span', { class: 'badge state-disabled' }, 'disabled'));
  if (!u.verified) list.append(h('span', { class: 'badge state-unverified' }, 'not verified'));
  if (u.totpEnabled) list.append(h('span', { class: 'badge' }, '2FA'));
  if (list.childElementCount === 0) list.append(h('span', { class: 'badge state-ok' }, 'active'));
  return list;
}

function usersTab(): Tab {
  let alive = true;
  let search = '';
  let offset = 0;
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const note = h('p', { class: 'notice', role: 'status', hidden: true });
  const tbody = h('tbody', {});
  const table = h(
    'table',
    { class: 'admin-table responsive', 'data-testid': 'admin-users' },
    h('caption', { class: 'visually-hidden' }, 'Users'),
    h('thead', {}, h('tr', {}, ...['User', 'State', 'Vehicles', 'Created', 'Last sign-in', 'Actions'].map((c) => h('th', { scope: 'col' }, c)))),
    tbody,
  );
  const paging = pager((o) => {
    offset = o;
    void load();
  });
  const box = searchBox('Search name or mail address', 'admin-user-search', (text) => {
    search = text;
    offset = 0;
    void load();
  });

  // a reset password, shown once
  const secret = h('code', { class: 'secret', 'data-testid': 'admin-new-password' });
  const secretUser = h('strong', {});
  const copy = h('button', { type: 'button' }, 'Copy');
  const copied = h('span', { class: 'muted', role: 'status' });
  const done = h('button', { type: 'button', class: 'secondary' }, 'Done');
  const secretPanel = h(
    'div',
    { class: 'new-token', role: 'region', 'aria-label': 'New password', hidden: true },
    h('p', { class: 'warning' }, 'The new password of ', secretUser, ': hand it to the owner now. It is shown only once; their sessions have ended.'),
    h('div', { class: 'secret-line' }, secret, copy, copied),
    done,
  );
  on(copy, { click: () => void copyText(secret.textContent ?? '', secret).then((ok) => setText(copied, ok ? 'Copied' : 'Select and copy it')) });
  on(done, {
    click: () => {
      secretPanel.hidden = true;
      setText(secret, '');
    },
  });

  function fail(what: string, err: unknown): void {
    setText(error, `${what}: ${errorText(err)}`);
    error.hidden = false;
  }

  function said(text: string): void {
    setText(note, text);
    note.hidden = false;
  }

  async function act(button: HTMLButtonElement, what: string, fn: () => Promise<unknown>, after: string): Promise<void> {
    button.disabled = true;
    error.hidden = true;
    try {
      await fn();
      said(after);
      await load();
    } catch (err) {
      button.disabled = false;
      fail(what, err);
    }
  }

  function actions(u: AdminUser): HTMLElement {
    const box = h('div', { class: 'row-actions' });
    const button = (label: string, testid: string, cls = 'secondary small') => h('button', { type: 'button', class: cls, 'data-testid': testid }, label);
    const simple = (action: UserAction, label: string, question: string, after: string) => {
      const b = button(label, `admin-${action}`);
      on(b, { click: () => window.confirm(question) && void act(b, `${label} failed`, () => userAction(u.name, action), after) });
      box.append(b);
    };
    // the operator's own account is neither disabled nor removed here (the server refuses it too)
    const self = u.name === currentUser();
    if (self) box.append(h('span', { class: 'muted small-note' }, 'you'));
    else if (u.disabled) simple('enable', 'Enable', `Enable ${u.name}? They can sign in again.`, `${u.name} is enabled.`);
    else simple('disable', 'Disable', `Disable ${u.name}? Their sessions and connections end now, and they cannot sign in until enabled again.`, `${u.name} is disabled.`);
    if (!u.verified) simple('verify', 'Verify', `Mark the mail address of ${u.name} as verified?`, `${u.name} is verified.`);
    const reset = button('Reset password', 'admin-reset');
    on(reset, {
      click: () => {
        if (!window.confirm(`Set a new password for ${u.name}? The old one stops working and their sessions end.`)) return;
        reset.disabled = true;
        error.hidden = true;
        resetPassword(u.name).then(
          (r) => {
            reset.disabled = false;
            setText(secretUser, r.user);
            setText(secret, r.password);
            setText(copied, '');
            secretPanel.hidden = false;
            copy.focus();
          },
          (err: unknown) => {
            reset.disabled = false;
            fail('The password could not be reset', err);
          },
        );
      },
    });
    const remove = button('Remove', 'admin-remove', 'danger small');
    on(remove, {
      click: () => {
        const vehicles = u.vehicles > 0 ? ` Their ${u.vehicles === 1 ? 'vehicle goes' : `${u.vehicles} vehicles go`} too, with all data.` : '';
        if (!window.confirm(`Remove the user ${u.name}?${vehicles} This cannot be undone.`)) return;
        void act(remove, 'The user could not be removed', () => removeUser(u.name, u.vehicles > 0), `${u.name} is removed.`);
      },
    });
    box.append(reset);
    if (!self) box.append(remove);
    return box;
  }

  function row(u: AdminUser): HTMLTableRowElement {
    return h(
      'tr',
      { 'data-testid': 'admin-user-row', 'data-user': u.name },
      cell('User', h('span', { class: 'user-name' }, u.name), u.email ? h('small', { class: 'muted block' }, u.email) : ''),
      cell('State', badges(u)),
      cell('Vehicles', String(u.vehicles)),
      cell('Created', utcText(u.created)),
      cell('Last sign-in', u.lastSignIn === null ? DASH : utcText(u.lastSignIn)),
      h('td', { class: 'actions-cell' }, actions(u)),
    );
  }

  async function load(): Promise<void> {
    try {
      const page = await adminUsers(search, offset, PAGE_SIZE);
      if (!alive) return;
      if (page.rows.length === 0 && page.total > 0 && offset > 0) {
        offset = Math.max(0, offset - PAGE_SIZE);
        return load();
      }
      replace(tbody, ...page.rows.map(row));
      if (page.rows.length === 0) replace(tbody, h('tr', {}, h('td', { colspan: 6, class: 'empty-cell muted' }, search ? `No user matches “${search}”.` : 'No users yet.')));
      paging.show(page.total, page.offset, page.rows.length);
    } catch (err) {
      if (alive) fail('The users could not be loaded', err);
    }
  }
  void load();

  return {
    el: h('section', { class: 'card' }, h('div', { class: 'admin-toolbar' }, box, paging.el), note, error, secretPanel, h('div', { class: 'table-wrap' }, table)),
    destroy: () => {
      alive = false;
    },
  };
}

const TABS: readonly [AdminTab, string][] = [
  ['users', 'Users'],
  ['vehicles', 'Vehicles'],
  ['server', 'Server'],
  ['audit', 'Audit log'],
];

export function adminPage(initial: AdminTab): Page {
  const links = TABS.map(([tab, label]) => h('a', { href: href({ name: 'admin', tab }), 'data-testid': `admin-tab-${tab}` }, label));
  const body = h('div', {});
  let tab: Tab | null = null;
  let current: AdminTab = initial;
  const show = (t: AdminTab) => {
    current = t;
    tab?.destroy();
    tab = t === 'users' ? usersTab() : t === 'vehicles' ? vehiclesTab() : t === 'server' ? serverTab() : auditTab();
    replace(body, tab.el);
    TABS.forEach(([name], k) => (name === t ? links[k]!.setAttribute('aria-current', 'page') : links[k]!.removeAttribute('aria-current')));
  };
  show(initial);
  return {
    el: h('div', { class: 'admin-page' }, h('h1', {}, 'Admin'), h('nav', { class: 'tabs', 'aria-label': 'Admin' }, ...links), body),
    title: 'Admin',
    update(route) {
      if (route.name !== 'admin') return false;
      if (route.tab !== current) show(route.tab);
      return true;
    },
    destroy: () => tab?.destroy(),
  };
}
