/** What the tabs of the operator's page share (admin.ts, admin-lists.ts). */
import { ApiError } from '../api';
import { h, on, setText } from '../dom';

/** A tab of the page: its element, and what stops its timers and requests. */
export interface Tab {
  el: HTMLElement;
  destroy(): void;
}

export const PAGE_SIZE = 25;

export const errorText = (err: unknown): string => (err instanceof ApiError ? err.message : String(err));

/** A cell with its column name for the narrow (card) layout. */
export function cell(label: string, ...content: (Node | string)[]): HTMLTableCellElement {
  return h('td', { 'data-label': label }, h('div', { class: 'cell' }, ...content));
}

/** A search box that calls `onSearch` a moment after the typing stops. */
export function searchBox(placeholder: string, testid: string, onSearch: (text: string) => void): HTMLInputElement {
  const input = h('input', { type: 'search', placeholder, 'aria-label': placeholder, autocapitalize: 'none', spellcheck: 'false', maxlength: 100, 'data-testid': testid });
  let timer: number | undefined;
  on(input, {
    input: () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => onSearch(input.value.trim()), 250);
    },
  });
  return input;
}

/** "1–25 of 80" with Previous and Next. */
export function pager(onMove: (offset: number) => void): { el: HTMLElement; show(total: number, offset: number, shown: number): void } {
  const text = h('span', { class: 'muted', role: 'status' });
  const prev = h('button', { type: 'button', class: 'secondary small' }, 'Previous');
  const next = h('button', { type: 'button', class: 'secondary small' }, 'Next');
  let at = 0;
  on(prev, { click: () => onMove(Math.max(0, at - PAGE_SIZE)) });
  on(next, { click: () => onMove(at + PAGE_SIZE) });
  return {
    el: h('div', { class: 'pager' }, text, prev, next),
    show(total, offset, shown) {
      at = offset;
      setText(text, total === 0 ? 'None found' : `${offset + 1}–${offset + shown} of ${total}`);
      prev.disabled = offset === 0;
      next.disabled = offset + shown >= total;
    },
  };
}

