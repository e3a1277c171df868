/** The dashboard's shell: header, session check, routing to the pages. */
import './styles.css';
import { currentUser, isAdmin, loadSession, onUnauthorized, sessionTimeout, signOut } from './api';
import { h, on, replace, setText } from './dom';
import { accountPage } from './pages/account';
import { adminPage } from './pages/admin';
import { loginPage } from './pages/login';
import { notFoundPage } from './pages/not-found';
import { placesPage } from './pages/places';
import { resetPage, signupPage, verifyPage } from './pages/signup';
import { vehiclePage } from './pages/vehicle';
import { vehiclesPage } from './pages/vehicles';
import { currentRoute, go, href, PUBLIC_ROUTES, type Page, type Route } from './router';

/**
 * An open, visible dashboard keeps its session alive (the expiry slides with use): a session
 * check every third of the timeout, at most every minute.
 */
const keepaliveMs = () => Math.max(5_000, Math.min(60_000, (sessionTimeout() * 1000) / 3));

const root = document.getElementById('app');
if (!root) throw new Error('#app missing');

const navVehicles = h('a', { href: href({ name: 'vehicles' }), 'data-testid': 'nav-vehicles' }, 'Vehicles');
const navPlaces = h('a', { href: href({ name: 'places' }), 'data-testid': 'nav-places' }, 'Places');
const navAccount = h('a', { href: href({ name: 'account' }), 'data-testid': 'nav-account' }, 'Account');
// only for an admin session (GET /api/session says `admin`)
const navAdmin = h('a', { href: href({ name: 'admin', tab: 'users' }), 'data-testid': 'nav-admin', hidden: true }, 'Admin');
const userName = h('span', { class: 'user', title: 'Signed in as' });
const signOutButton = on(h('button', { type: 'button', class: 'secondary', 'data-testid': 'signout' }, 'Sign out'), {
  click: () => void doSignOut(),
});
const header = h(
  'header',
  { class: 'topbar' },
  h('a', { class: 'brand', href: '#/' }, 'vts'),
  h('nav', { 'aria-label': 'Main' }, navVehicles, navPlaces, navAccount, navAdmin),
  h('div', { class: 'who' }, userName, signOutButton),
);
const main = h('main', { id: 'main', tabindex: '-1' });
replace(root, header, main);

let page: Page | null = null;
/** Where to go after signing in. */
let wanted: Route | null = null;
/** Shown on the sign-in page (e.g. "your session has ended"). */
let loginNote = '';
/** The user of the session that ended: the sign-in form starts with it. */
let lastUser = '';

function mount(route: Route): Page {
  switch (route.name) {
    case 'login':
      return loginPage({
        note: loginNote,
        username: lastUser,
        onSignedIn: () => {
          loginNote = '';
          const target = wanted ?? { name: 'vehicles' };
          wanted = null;
          go(target, true);
        },
      });
    case 'vehicles':
      return vehiclesPage();
    case 'vehicle':
      return vehiclePage(route.id, route.tab, route.item);
    case 'places':
      return placesPage();
    case 'account':
      return accountPage();
    case 'admin':
      return isAdmin() ? adminPage(route.tab) : notFoundPage(`/admin${route.tab === 'users' ? '' : `/${route.tab}`}`);
    case 'signup':
      return signupPage();
    case 'verify':
      return verifyPage(route.token);
    case 'reset':
      return resetPage(route.token);
    case 'notfound':
      return notFoundPage(route.path);
  }
}

function updateHeader(route: Route): void {
  const user = currentUser();
  if (user) lastUser = user;
  header.hidden = user === null;
  setText(userName, user ?? '');
  const active =
    route.name === 'vehicles' || route.name === 'vehicle'
      ? navVehicles
      : route.name === 'places'
        ? navPlaces
        : route.name === 'account'
          ? navAccount
          : route.name === 'admin'
            ? navAdmin
            : null;
  navAdmin.hidden = !isAdmin();
  for (const a of [navVehicles, navPlaces, navAccount, navAdmin]) {
    if (a === active) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

function render(): void {
  const route = currentRoute();
  const signedIn = currentUser() !== null;
  if (!signedIn && !PUBLIC_ROUTES.includes(route.name)) {
    wanted = route;
    go({ name: 'login' }, true);
    return;
  }
  if (signedIn && route.name === 'login') {
    go({ name: 'vehicles' }, true);
    return;
  }
  updateHeader(route);
  if (page?.update?.(route)) {
    document.title = `${page.title} · vts`;
    return;
  }
  page?.destroy?.();
  page = mount(route);
  replace(main, page.el);
  document.title = `${page.title} · vts`;
}

async function doSignOut(): Promise<void> {
  signOutButton.disabled = true;
  try {
    await signOut();
  } catch {
    // signed out here anyway: the session cookie is dropped by the server or expires
  } finally {
    signOutButton.disabled = false;
  }
  loginNote = 'You have signed out.';
  lastUser = '';
  wanted = null;
  page?.destroy?.();
  page = null;
  go({ name: 'login' });
}

onUnauthorized(() => {
  if (currentRoute().name === 'login') return;
  loginNote = 'Your session has ended. Please sign in again.';
  wanted = currentRoute();
  page?.destroy?.();
  page = null;
  go({ name: 'login' });
});

let lastKeepalive = Date.now();
setInterval(() => {
  if (Date.now() - lastKeepalive < keepaliveMs()) return;
  lastKeepalive = Date.now();
  if (currentUser() !== null && document.visibilityState === 'visible') {
    loadSession().then(
      (s) => {
        if (s === null && currentRoute().name !== 'login') {
          loginNote = 'Your session has ended. Please sign in again.';
          wanted = currentRoute();
          page?.destroy?.();
          page = null;
          render();
        }
      },
      () => undefined, // offline for a moment: the pages show their own errors
    );
  }
}, 1_000);

async function boot(): Promise<void> {
  try {
    await loadSession();
  } catch (err) {
    const retry = on(h('button', { type: 'button' }, 'Try again'), { click: () => location.reload() });
    replace(
      main,
      h(
        'section',
        { class: 'card narrow' },
        h('h1', {}, 'vts'),
        h('p', { class: 'error', role: 'alert' }, `The server cannot be reached: ${err instanceof Error ? err.message : String(err)}`),
        retry,
      ),
    );
    header.hidden = true;
    return;
  }
  window.addEventListener('hashchange', render);
  render();
}

void boot();
