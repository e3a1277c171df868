/**
 * One vehicle: a header with its name (the owner's name for it, else its id), one state (the
 * car online with its link, offline, or the live updates (re)connecting) and the tabs Live, Drives,
 * Charges, Battery, Stats, History, Console, Alerts (the rules by which the server alerts the
 * owner, and the owner's quiet hours), Notifications (what was pushed, and how each delivery went),
 * Integrations (Home Assistant) and ABRP (the link to the owner's ABRP account); a drive or a
 * charge opens in its tab. The page first makes sure the vehicle is
 * one of the user's (`GET /api/overview`): an unknown vehicle, or another owner's, shows
 * "not found" and calls nothing more (no stream, no 403s polled). Then the live stream is opened
 * for the whole page (it feeds the badge, the Live tab, the Console's buttons and the
 * Notifications tab's refresh); each tab is built the first time it is shown and kept while the
 * page is open. A call refused later (the vehicle deleted or given away meanwhile) checks again.
 */
import { ApiError, overview } from '../api';
import { h, on, replace, setText } from '../dom';
import { epochOf, linkLabel, linkTitle } from '../format';
import { LiveStream, type StreamState } from '../live-stream';
import { href, type Page, type Route, type VehicleTab } from '../router';
import type { LiveLink, OverviewRow } from '../types';
import { abrpPanel } from './abrp';
import { alertsPanel } from './alerts';
import { batteryPanel } from './battery';
import { chargesPanel } from './charges';
import { consolePanel } from './console';
import { drivesPanel } from './drives';
import { historyPanel } from './history';
import { integrationsPanel } from './integrations';
import { livePanel } from './live';
import { notificationsPanel } from './notifications';
import { statsPanel } from './stats';

/** A tab's content. */
export interface Panel {
  el: HTMLElement;
  /** called each time the tab becomes visible; `item`: the drive or charge the route names */
  shown?(item?: number): void;
  destroy?(): void;
}

/** What the tabs share: the vehicle, its stream, and the latest state seen on it. */
export interface VehicleContext {
  /** the vehicle's id as the server spells it */
  id: string;
  stream: LiveStream;
  /** the link state: from the overview, then from the stream's `link` events */
  link: LiveLink | null;
  /** epoch seconds of the last `record` event */
  lastRecord: number | null;
  /**
   * A call about the vehicle was refused with 403: checks whether the vehicle is still the user's;
   * when it is not, the page says so and stops (the panel need not show its own error then).
   */
  refused(): void;
}

const TABS: { tab: VehicleTab; label: string }[] = [
  { tab: 'live', label: 'Live' },
  { tab: 'drives', label: 'Drives' },
  { tab: 'charges', label: 'Charges' },
  { tab: 'battery', label: 'Battery' },
  { tab: 'stats', label: 'Stats' },
  { tab: 'history', label: 'History' },
  { tab: 'console', label: 'Console' },
  { tab: 'alerts', label: 'Alerts' },
  { tab: 'notifications', label: 'Notifications' },
  { tab: 'integrations', label: 'Integrations' },
  { tab: 'abrp', label: 'ABRP' },
];

const PANELS: Record<VehicleTab, (ctx: VehicleContext) => Panel> = {
  live: livePanel,
  history: historyPanel,
  drives: drivesPanel,
  charges: chargesPanel,
  battery: batteryPanel,
  stats: statsPanel,
  console: consolePanel,
  alerts: alertsPanel,
  notifications: notificationsPanel,
  integrations: integrationsPanel,
  abrp: abrpPanel,
};

/**
 * The one state the header shows, from the car's link and the page's live stream: while the
 * stream is not open the car's link is not known to be current, so that is what it says; once it
 * is, the car's link (online with its protocol, or offline).
 */
function headerState(l: LiveLink | null, stream: StreamState): { text: string; title: string; state: string } {
  if (stream === 'connecting') return { text: 'connecting…', title: 'Opening the live updates', state: 'connecting' };
  if (stream === 'retrying') return { text: 'reconnecting…', title: 'The live updates were interrupted: the page tries again', state: 'retrying' };
  if (!l) return { text: '…', title: '', state: 'unknown' };
  if (!l.online || !l.link) return { text: 'offline', title: 'The car is not connected: this page updates when it connects', state: 'offline' };
  return { text: `online · ${linkLabel(l.link, true)}`, title: `${linkTitle(l.link, true)}; this page updates live`, state: l.link };
}

type Lookup = { row: OverviewRow } | { row: null } | { error: string };

/** The user's vehicle of that id (ids are case-insensitive, as in the API). */
async function lookUp(id: string): Promise<Lookup> {
  try {
    const rows = await overview();
    return { row: rows.find((r) => r.id.toUpperCase() === id.toUpperCase()) ?? null };
  } catch (err) {
    return { error: err instanceof ApiError ? err.message : String(err) };
  }
}

export function vehiclePage(routeId: string, initialTab: VehicleTab, initialItem?: number): Page {
  const stream = new LiveStream(routeId);
  let ended = false;
  let checking = false;

  const badge = h('span', { class: 'badge', 'data-testid': 'live-link', 'data-link': 'unknown', role: 'status' }, 'checking…');
  const apps = h('span', { class: 'muted' });
  // the owner's name for the car when it has one (the id beside it), else the id
  const name = h('span', { 'data-testid': 'vehicle-name' }, routeId);
  const idNote = h('span', { class: 'vehicle-id-note muted', 'data-testid': 'vehicle-id', hidden: true });
  const title = h('h1', {}, h('a', { href: '#/', class: 'back', 'aria-label': 'All vehicles' }, '‹'), ' ', name, ' ', idNote);
  const conn = h('div', { class: 'conn' }, badge, apps);
  let streamNow: StreamState = 'connecting';

  const tabLinks = new Map<VehicleTab, HTMLAnchorElement>();
  const tabNav = h('nav', { class: 'tabs', 'aria-label': 'Vehicle views' });
  for (const t of TABS) {
    const a = h('a', { href: href({ name: 'vehicle', id: routeId, tab: t.tab }), 'data-testid': `tab-${t.tab}` }, t.label);
    tabLinks.set(t.tab, a);
    tabNav.append(a);
  }
  const body = h('div', { class: 'tab-body' }, h('p', { class: 'muted', role: 'status' }, 'Loading…'));
  const el = h('section', { class: 'page vehicle' }, h('div', { class: 'page-head' }, title, conn), tabNav, body);

  const ctx: VehicleContext = { id: routeId, stream, link: null, lastRecord: null, refused: () => void recheck() };
  const panels = new Map<VehicleTab, Panel>();
  let wanted: VehicleTab = initialTab;
  let wantedItem: number | undefined = initialItem;
  let current: VehicleTab | null = null;
  let currentItem: number | undefined;
  let ready = false;

  function showState(): void {
    const st = headerState(ctx.link, streamNow);
    setText(badge, st.text);
    badge.title = st.title;
    badge.dataset.link = st.state;
  }

  function showLink(l: LiveLink): void {
    ctx.link = l;
    showState();
    setText(apps, `${l.apps} app${l.apps === 1 ? '' : 's'}${l.batches ? `, ${l.batches} batch` : ''}`);
  }

  function showTab(tab: VehicleTab, item?: number): void {
    wanted = tab;
    wantedItem = item;
    for (const [t, a] of tabLinks) {
      if (t === tab) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    if (!ready || ended || (tab === current && item === currentItem)) return;
    current = tab;
    currentItem = item;
    let panel = panels.get(tab);
    if (!panel) {
      panel = PANELS[tab](ctx);
      panels.set(tab, panel);
      body.append(panel.el);
    }
    for (const [t, p] of panels) p.el.hidden = t !== tab;
    panel.shown?.(item);
  }

  function stop(): void {
    ended = true;
    stream.close();
    for (const p of panels.values()) p.destroy?.();
    panels.clear();
  }

  /**
   * A vehicle shared with the user: only the owner has its alerts, notifications and ABRP link;
   * a `view` share sends no command (no Console). The tabs it may not use are hidden.
   */
  function limitTabs(access: 'owner' | 'control' | 'view', owner: string): void {
    if (access === 'owner') return;
    const hidden = new Set<VehicleTab>(['alerts', 'notifications', 'abrp', ...(access === 'view' ? (['console'] as const) : [])]);
    for (const [t, a] of tabLinks) a.hidden = hidden.has(t);
    conn.append(h('span', { class: 'badge shared-badge', 'data-testid': 'vehicle-shared' }, `shared by ${owner} · ${access}`));
    if (hidden.has(wanted)) wanted = 'live';
  }

  /** The vehicle is not the user's: one message, nothing more is called. */
  function showNotFound(): void {
    stop();
    replace(
      el,
      h(
        'section',
        { class: 'card narrow', 'data-testid': 'vehicle-not-found', role: 'alert' },
        h('h1', {}, 'Vehicle not found'),
        h('p', {}, 'There is no vehicle ', h('code', {}, routeId), ' among yours: it does not exist, or it belongs to another user.'),
        h('p', {}, h('a', { href: '#/' }, 'Back to the vehicles')),
      ),
    );
  }

  function showLookupError(message: string): void {
    const retry = on(h('button', { type: 'button', class: 'secondary' }, 'Try again'), { click: () => void boot() });
    replace(body, h('p', { class: 'error', role: 'alert' }, `The vehicle could not be loaded: ${message}`), retry);
  }

  async function boot(): Promise<void> {
    replace(body, h('p', { class: 'muted', role: 'status' }, 'Loading…'));
    const found = await lookUp(routeId);
    if (ended) return;
    if ('error' in found) return showLookupError(found.error);
    if (!found.row) return showNotFound();
    const row = found.row;
    ctx.id = row.id;
    const named = row.name.trim() !== '' && row.name !== row.id;
    setText(name, named ? row.name : row.id);
    setText(idNote, named ? row.id : '');
    idNote.hidden = !named;
    page.title = named ? row.name : row.id;
    document.title = `${page.title} · vts`;
    showLink({ online: row.online, link: row.link, apps: row.apps, batches: row.batches });
    limitTabs(row.access ?? 'owner', row.owner ?? '');
    replace(body);
    ready = true;
    stream.subscribe({
      link: showLink,
      record(r) {
        ctx.lastRecord = epochOf(r.time) ?? Date.now() / 1000;
      },
      state(s) {
        streamNow = s;
        showState();
      },
      refused: () => void recheck(),
    });
    showTab(wanted, wantedItem);
    stream.start();
  }

  async function recheck(): Promise<void> {
    if (ended || checking) return;
    checking = true;
    try {
      const found = await lookUp(routeId);
      // an error here (offline for a moment) is the panels' to show
      if (!ended && 'row' in found && found.row === null) showNotFound();
    } finally {
      checking = false;
    }
  }

  const page: Page = {
    el,
    title: routeId,
    update(route: Route): boolean {
      if (route.name !== 'vehicle' || route.id !== routeId) return false;
      showTab(route.tab, route.item);
      return true;
    },
    destroy: stop,
  };
  showTab(initialTab, initialItem);
  void boot();
  return page;
}
