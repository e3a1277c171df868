/** An unknown route. */
import { h } from '../dom';
import type { Page } from '../router';

export function notFoundPage(path: string): Page {
  const el = h(
    'section',
    { class: 'card narrow' },
    h('h1', {}, 'Page not found'),
    h('p', {}, 'There is no page at ', h('code', {}, path), '.'),
    h('p', {}, h('a', { href: '#/' }, 'Back to the vehicles')),
  );
  return { el, title: 'Not found' };
}
