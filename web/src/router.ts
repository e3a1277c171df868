/**
 * Hash routing (the server needs no fallback route): `#/login`, `#/` (vehicles),
 * `#/vehicle/<ID>[/history|/console|/notifications]`, `#/account`.
 */

export type VehicleTab = 'live' | 'history' | 'console' | 'notifications';

export type Route =
  | { name: 'login' }
  | { name: 'vehicles' }
  | { name: 'vehicle'; id: string; tab: VehicleTab }
  | { name: 'account' }
  | { name: 'notfound'; path: string };

/** A mounted page; `update` may take a new route in place (true) instead of being rebuilt. */
export interface Page {
  el: HTMLElement;
  title: string;
  update?(route: Route): boolean;
  destroy?(): void;
}

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/';
  const parts = path.split('/').filter((p) => p !== '');
  if (parts.length === 0) return { name: 'vehicles' };
  let segs: string[];
  try {
    segs = parts.map((p) => decodeURIComponent(p));
  } catch {
    return { name: 'notfound', path };
  }
  const [first, second, third] = segs;
  if (segs.length === 1 && first === 'login') return { name: 'login' };
  if (segs.length === 1 && first === 'account') return { name: 'account' };
  if (first === 'vehicle' && second && segs.length <= 3) {
    if (third === undefined || third === 'live') return { name: 'vehicle', id: second, tab: 'live' };
    if (third === 'history' || third === 'console' || third === 'notifications') return { name: 'vehicle', id: second, tab: third };
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
    case 'vehicle':
      return `#/vehicle/${encodeURIComponent(route.id)}${route.tab === 'live' ? '' : `/${route.tab}`}`;
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
