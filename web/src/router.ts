/**
 * Hash routing (the server needs no fallback route): `#/login`, `#/` (vehicles),
 * `#/vehicle/<ID>[/<tab>]`, a drive or a charge as `#/vehicle/<ID>/drives/<n>` and
 * `#/vehicle/<ID>/charges/<n>`, `#/places`, `#/account`, `#/admin[/<tab>]` (admins); without a session `#/signup`,
 * `#/verify?token=…` and `#/reset[?token=…]`.
 */

export type AdminTab = 'users' | 'vehicles' | 'server' | 'audit';

const ADMIN_TABS: readonly string[] = ['users', 'vehicles', 'server', 'audit'];

export type VehicleTab = 'live' | 'history' | 'drives' | 'charges' | 'battery' | 'stats' | 'console' | 'alerts' | 'notifications' | 'integrations' | 'abrp';

const TABS: readonly string[] = ['live', 'history', 'drives', 'charges', 'battery', 'stats', 'console', 'alerts', 'notifications', 'integrations', 'abrp'];
/** The tabs whose rows open a page of their own. */
const ITEM_TABS: readonly string[] = ['drives', 'charges'];

export type Route =
  | { name: 'login' }
  | { name: 'vehicles' }
  /** `item`: a drive's or charge's id on the tab of that name */
  | { name: 'vehicle'; id: string; tab: VehicleTab; item?: number }
  | { name: 'places' }
  | { name: 'account' }
  /** the operator's page (admins only): `#/admin`, `#/admin/vehicles|server|audit` */
  | { name: 'admin'; tab: AdminTab }
  /** sign-up and recovery (no session needed): `#/signup`, `#/verify?token=…`, `#/reset[?token=…]` */
  | { name: 'signup' }
  | { name: 'verify'; token: string }
  | { name: 'reset'; token: string }
  | { name: 'notfound'; path: string };

/** The routes a visitor who is not signed in may open. */
export const PUBLIC_ROUTES: readonly Route['name'][] = ['login', 'signup', 'verify', 'reset'];

/** `#/verify?token=…` (the mailed links, src/http/web-api/account-links.ts): the page and its token. */
function accountRoute(path: string): Route | null {
  const m = /^\/(signup|verify|reset)\/?(?:\?(.*))?$/.exec(path);
  if (!m) return null;
  if (m[1] === 'signup') return { name: 'signup' };
  const token = new URLSearchParams(m[2] ?? '').get('token') ?? '';
  return { name: m[1] as 'verify' | 'reset', token: /^[A-Za-z0-9_-]{1,100}$/.test(token) ? token : '' };
}

/** A mounted page; `update` may take a new route in place (true) instead of being rebuilt. */
export interface Page {
  el: HTMLElement;
  title: string;
  update?(route: Route): boolean;
  destroy?(): void;
}

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/';
  const account = accountRoute(path);
  if (account) return account;
  const parts = path.split('/').filter((p) => p !== '');
  if (parts.length === 0) return { name: 'vehicles' };
  let segs: string[];
  try {
    segs = parts.map((p) => decodeURIComponent(p));
  } catch {
    return { name: 'notfound', path };
  }
  const [first, second, third, fourth] = segs;
  if (segs.length === 1 && first === 'login') return { name: 'login' };
  if (segs.length === 1 && first === 'account') return { name: 'account' };
  if (segs.length === 1 && first === 'places') return { name: 'places' };
  if (first === 'admin' && segs.length === 1) return { name: 'admin', tab: 'users' };
  if (first === 'admin' && segs.length === 2 && second && ADMIN_TABS.includes(second)) return { name: 'admin', tab: second as AdminTab };
  if (first === 'vehicle' && second && segs.length <= 3) {
    if (third === undefined) return { name: 'vehicle', id: second, tab: 'live' };
    if (TABS.includes(third)) return { name: 'vehicle', id: second, tab: third as VehicleTab };
  }
  if (first === 'vehicle' && second && third && ITEM_TABS.includes(third) && fourth && /^[1-9]\d{0,14}$/.test(fourth) && segs.length === 4) {
    return { name: 'vehicle', id: second, tab: third as VehicleTab, item: Number(fourth) };
  }
  return { name: 'notfound', path };
}

export function href(route: Route): string {
  switch (route.name) {
    case 'login':
      return '#/login';
    case 'vehicles':
      return '#/';
    case 'account':
      return '#/account';
    case 'places':
      return '#/places';
    case 'admin':
      return route.tab === 'users' ? '#/admin' : `#/admin/${route.tab}`;
    case 'vehicle':
      return `#/vehicle/${encodeURIComponent(route.id)}${route.tab === 'live' ? '' : `/${route.tab}`}${route.item === undefined ? '' : `/${route.item}`}`;
    case 'signup':
      return '#/signup';
    case 'verify':
    case 'reset':
      return `#/${route.name}${route.token ? `?token=${encodeURIComponent(route.token)}` : ''}`;
    case 'notfound':
      return `#${route.path}`;
  }
}

export function go(route: Route, replaceEntry = false): void {
  const target = href(route);
  if (location.hash === target) {
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else if (replaceEntry) {
    history.replaceState(null, '', target);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    location.hash = target;
  }
}

export function currentRoute(): Route {
  return parseRoute(location.hash);
}
