/**
 * A tiny DOM helper. Text is always set as text (never parsed as HTML): values from the server
 * cannot inject markup.
 */

export type Child = Node | string | number | null | undefined | false;

type Handlers = { [K in keyof HTMLElementEventMap]?: (ev: HTMLElementEventMap[K]) => void };

/** Attributes (`class`, `data-testid`, `aria-*`…); `true` sets an empty attribute, false/null/undefined none. */
export type Attrs = Record<string, string | number | boolean | null | undefined>;

/** Creates an element: `h('button', { type: 'button', 'data-testid': 'x' }, 'Label')`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, ...children);
  return el;
}

/** Appends children; strings and numbers become text nodes. */
export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** Replaces all children of `parent`. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** Adds typed event listeners; returns the element for chaining. */
export function on<E extends HTMLElement>(el: E, handlers: Handlers): E {
  for (const [type, fn] of Object.entries(handlers)) {
    if (fn) el.addEventListener(type, fn as EventListener);
  }
  return el;
}

/** Sets the text of an element (only when it changed, so screen readers are not spammed). */
export function setText(el: Element, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

/** A labelled form field: `<label>Text <input …></label>` with the input returned too. */
export function field(label: string, input: HTMLInputElement | HTMLSelectElement, hint?: string): HTMLLabelElement {
  return h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), input, hint ? h('small', { class: 'hint' }, hint) : null);
}
