/**
 * The operator's page beside the users (admin.ts): the vehicles (owner, link, online, last
 * message, traffic), the server's figures (refreshed every few seconds) and the audit log.
 */
import { adminVehicles, auditLog, serverFigures, type AdminVehicle, type AuditEntry, type NodeFigures, type ServerFigures } from '../admin-api';
import { field, h, on, replace, setText } from '../dom';
import { DASH, ageText, durationText, linkLabel, linkTitle, utcText } from '../format';
import { href } from '../router';
import { cell, errorText, pager, PAGE_SIZE, searchBox, type Tab } from './admin-parts';

const SERVER_REFRESH_MS = 3000;

/** Bytes as B, kB, MB or GB. */
export function bytesText(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = -1;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

export function vehiclesTab(): Tab {
  let alive = true;
  let search = '';
  let offset = 0;
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const tbody = h('tbody', {});
  const table = h(
    'table',
    { class: 'admin-table responsive', 'data-testid': 'admin-vehicles' },
    h('caption', { class: 'visually-hidden' }, 'Vehicles'),
    h('thead', {}, h('tr', {}, ...['Vehicle', 'Owner', 'Link', 'Last seen', 'Traffic today', 'Traffic 30 days'].map((c) => h('th', { scope: 'col' }, c)))),
    tbody,
  );
  const paging = pager((o) => {
    offset = o;
    void load();
  });
  const box = searchBox('Search id, name or owner', 'admin-vehicle-search', (text) => {
    search = text;
    offset = 0;
    void load();
  });
  const now = () => Math.floor(Date.now() / 1000);
  const row = (v: AdminVehicle) =>
    h(
      'tr',
      { 'data-testid': 'admin-vehicle-row', 'data-vehicle': v.id },
      cell('Vehicle', h('a', { href: href({ name: 'vehicle', id: v.id, tab: 'live' }) }, v.id), v.name ? h('small', { class: 'muted block' }, v.name) : ''),
      cell('Owner', v.owner),
      cell('Link', h('span', { class: 'badge', 'data-link': v.online ? (v.link ?? 'offline') : 'offline', title: linkTitle(v.link, v.online) }, linkLabel(v.link, v.online))),
      cell('Last seen', v.lastSeen === null ? 'never' : h('span', { title: utcText(v.lastSeen) }, ageText(now() - v.lastSeen))),
      cell('Traffic today', bytesText(v.trafficToday)),
      cell('Traffic 30 days', bytesText(v.traffic30Days)),
    );

  async function load(): Promise<void> {
    try {
      const page = await adminVehicles(search, offset, PAGE_SIZE);
      if (!alive) return;
      error.hidden = true;
      replace(tbody, ...page.rows.map(row));
      if (page.rows.length === 0) replace(tbody, h('tr', {}, h('td', { colspan: 6, class: 'empty-cell muted' }, search ? `No vehicle matches “${search}”.` : 'No vehicles yet.')));
      paging.show(page.total, page.offset, page.rows.length);
    } catch (err) {
      if (!alive) return;
      setText(error, `The vehicles could not be loaded: ${errorText(err)}`);
      error.hidden = false;
    }
  }
  void load();
  return {
    el: h('section', { class: 'card' }, h('div', { class: 'admin-toolbar' }, box, paging.el), error, h('div', { class: 'table-wrap' }, table)),
    destroy: () => {
      alive = false;
    },
  };
}

const CONNECTIONS: readonly [keyof NodeFigures['connections'], string][] = [
  ['cars', 'Cars (MP)'],
  ['apps', 'Apps (MP)'],
  ['batch', 'Batch clients'],
  ['mqttModules', 'v3 modules'],
  ['mqttClients', 'MQTT clients'],
  ['apiSessions', 'API sessions'],
  ['liveStreams', 'Live streams'],
];

function figure(label: string, value: string, testid: string): HTMLElement {
  return h('div', { class: 'figure' }, h('span', { class: 'figure-value', 'data-testid': testid }, value), h('span', { class: 'figure-label' }, label));
}

export function serverTab(): Tab {
  let alive = true;
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const updated = h('p', { class: 'muted updated', role: 'status' });
  const figures = h('div', { class: 'admin-figures' });
  const nodes = h('div', { class: 'table-wrap' });
  const facts = h('p', { class: 'muted' });

  function render(f: ServerFigures): void {
    const c = f.self.connections;
    const open = Object.values(f.outbox).reduce((a, b) => a + b, 0);
    replace(
      figures,
      ...CONNECTIONS.map(([key, label]) => figure(label, String(c[key]), `server-${key}`)),
      figure('Messages / s', f.self.messagesPerSecond.toFixed(1), 'server-rate'),
      figure('Push outbox', String(open), 'server-outbox'),
    );
    setText(facts, `${f.version} · node ${f.self.node} · up ${durationText(f.uptime)} · cluster: ${f.cluster.clustered ? f.cluster.health : 'single node'}`);
    if (!f.cluster.clustered) {
      replace(nodes);
      return;
    }
    replace(
      nodes,
      h(
        'table',
        { class: 'admin-table responsive', 'data-testid': 'server-nodes' },
        h('caption', {}, 'Nodes'),
        h('thead', {}, h('tr', {}, ...['Node', 'Cars', 'Apps', 'v3 modules', 'MQTT clients', 'Messages / s'].map((t) => h('th', { scope: 'col' }, t)))),
        h(
          'tbody',
          {},
          ...f.cluster.nodes.map((n) =>
            h(
              'tr',
              {},
              cell('Node', n.node),
              cell('Cars', String(n.connections.cars)),
              cell('Apps', String(n.connections.apps)),
              cell('v3 modules', String(n.connections.mqttModules)),
              cell('MQTT clients', String(n.connections.mqttClients)),
              cell('Messages / s', n.messagesPerSecond.toFixed(1)),
            ),
          ),
        ),
      ),
    );
  }

  let timer: number | undefined;
  async function load(): Promise<void> {
    try {
      const f = await serverFigures();
      if (!alive) return;
      render(f);
      error.hidden = true;
      setText(updated, `Updated ${new Date().toLocaleTimeString()} · refreshes every ${SERVER_REFRESH_MS / 1000} s`);
    } catch (err) {
      if (!alive) return;
      setText(error, `The figures could not be loaded: ${errorText(err)}`);
      error.hidden = false;
    }
    if (alive) timer = window.setTimeout(() => void load(), SERVER_REFRESH_MS);
  }
  void load();
  return {
    el: h('section', { class: 'card' }, h('h2', {}, 'This server now'), updated, error, figures, facts, nodes),
    destroy: () => {
      alive = false;
      window.clearTimeout(timer);
    },
  };
}

/** A few words for an entry's detail (the client's address, a reason, …). */
function detailText(e: AuditEntry): string {
  const parts = Object.entries(e.detail)
    .filter(([k]) => k !== 'user')
    .map(([k, v]) => `${k}: ${String(v)}`);
  return parts.length === 0 ? '' : parts.join(', ');
}

export function auditTab(): Tab {
  let alive = true;
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const tbody = h('tbody', {});
  const more = h('button', { type: 'button', class: 'secondary', hidden: true, 'data-testid': 'audit-more' }, 'Older entries');
  const action = h('input', { type: 'search', placeholder: 'e.g. user or session.signin', maxlength: 100, autocapitalize: 'none', spellcheck: 'false', 'data-testid': 'audit-action' });
  const actor = h('input', { type: 'search', placeholder: 'a user name', maxlength: 100, autocapitalize: 'none', spellcheck: 'false', 'data-testid': 'audit-actor' });
  const form = h('form', { class: 'admin-filters' }, field('Action', action), field('Done by', actor), h('div', { class: 'form-actions' }, h('button', { type: 'submit' }, 'Filter')));
  const table = h(
    'table',
    { class: 'admin-table responsive', 'data-testid': 'admin-audit' },
    h('caption', { class: 'visually-hidden' }, 'Audit log'),
    h('thead', {}, h('tr', {}, ...['Time', 'Action', 'By', 'Via', 'Target', 'Detail'].map((c) => h('th', { scope: 'col' }, c)))),
    tbody,
  );
  let next: number | null = null;
  const row = (e: AuditEntry) =>
    h(
      'tr',
      { 'data-testid': 'audit-row', 'data-action': e.action },
      cell('Time', utcText(e.time)),
      cell('Action', h('code', {}, e.action)),
      cell('By', e.actor || DASH),
      cell('Via', e.via),
      cell('Target', e.target || DASH),
      cell('Detail', h('span', { class: 'muted' }, detailText(e) || DASH)),
    );

  async function load(append: boolean): Promise<void> {
    try {
      const filter = { action: action.value.trim(), actor: actor.value.trim(), ...(append && next !== null ? { before: next } : {}) };
      const page = await auditLog(filter);
      if (!alive) return;
      error.hidden = true;
      if (!append) replace(tbody);
      tbody.append(...page.entries.map(row));
      if (tbody.childElementCount === 0) replace(tbody, h('tr', {}, h('td', { colspan: 6, class: 'empty-cell muted' }, 'No entries.')));
      next = page.next;
      more.hidden = next === null;
    } catch (err) {
      if (!alive) return;
      setText(error, `The audit log could not be loaded: ${errorText(err)}`);
      error.hidden = false;
    }
  }
  on(form, {
    submit: (ev) => {
      ev.preventDefault();
      void load(false);
    },
  });
  on(more, { click: () => void load(true) });
  void load(false);
  return {
    el: h('section', { class: 'card' }, form, error, h('div', { class: 'table-wrap' }, table), more),
    destroy: () => {
      alive = false;
    },
  };
}
