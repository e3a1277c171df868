/**
 * Vehicle / Console: a terminal-like panel that runs console commands through
 * `POST /api/command/<id>`, with a per-vehicle command history (localStorage, last 50) and
 * buttons for the common actions (MP commands; Lock and Unlock take the vehicle PIN from a field of
 * their own, cleared once sent). While the car is offline (the live stream's `link`
 * events tell) the buttons and Run are disabled; errors read as sentences (error-text.ts).
 */
import { ApiError, command } from '../api';
import { h, on, type Child } from '../dom';
import type { CommandType } from '../types';
import type { Panel, VehicleContext } from './vehicle';

const HISTORY_MAX = 50;
/** Commands the module has (docs/protocol/module-console.md), read-only: safe to try. */
export const PLACEHOLDER = 'stat, stat trip, metrics list v.b.soc, help …';
/** The command's result code (OVMS: 0 ok, 1 failed, 2 unsupported, 3 unimplemented) as a sentence. */
const RESULT_TEXT: Record<number, string> = {
  0: 'Done.',
  1: 'The car reports that the command failed.',
  2: 'The car does not support this command.',
  3: 'The car has not implemented this command.',
};

interface Action {
  testid: string;
  label: string;
  /** MP command; `{pin}` comes from the PIN field of its group */
  mp: string;
  group: string;
}

const ACTIONS: Action[] = [
  { testid: 'action-lock', label: 'Lock', mp: '20,{pin}', group: 'Locks' },
  { testid: 'action-unlock', label: 'Unlock', mp: '22,{pin}', group: 'Locks' },
  { testid: 'action-climate-on', label: 'Climate on', mp: '26,1', group: 'Climate' },
  { testid: 'action-climate-off', label: 'Climate off', mp: '26,0', group: 'Climate' },
  { testid: 'action-charge-start', label: 'Start charging', mp: '11', group: 'Charging' },
  { testid: 'action-charge-stop', label: 'Stop charging', mp: '12', group: 'Charging' },
  { testid: 'action-homelink-1', label: 'Homelink 1', mp: '24,0', group: 'Homelink' },
  { testid: 'action-homelink-2', label: 'Homelink 2', mp: '24,1', group: 'Homelink' },
  { testid: 'action-homelink-3', label: 'Homelink 3', mp: '24,2', group: 'Homelink' },
];

function storageKey(id: string): string {
  return `vts.console.history.${id}`;
}

function loadHistory(id: string): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(storageKey(id)) ?? '[]') as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(-HISTORY_MAX) : [];
  } catch {
    return [];
  }
}

function saveHistory(id: string, list: string[]): void {
  try {
    localStorage.setItem(storageKey(id), JSON.stringify(list.slice(-HISTORY_MAX)));
  } catch {
    // storage full or disabled: the history lives for this page only
  }
}

export function consolePanel(ctx: VehicleContext): Panel {
  const output = h('div', {
    class: 'terminal-output',
    role: 'log',
    'aria-live': 'polite',
    'aria-label': 'Console transcript',
    'data-testid': 'console-output',
    tabindex: '0',
  });
  const input = h('input', {
    type: 'text',
    class: 'terminal-input',
    autocomplete: 'off',
    autocapitalize: 'none',
    spellcheck: 'false',
    'aria-label': `Command for ${ctx.id}`,
    placeholder: PLACEHOLDER,
    'data-testid': 'console-input',
  });
  const prompt = h('label', { class: 'prompt' }, `${ctx.id}$`);
  const runButton = h('button', { type: 'submit', class: 'secondary small run', 'data-testid': 'console-run' }, 'Run');
  const form = h('form', { class: 'terminal-line' }, prompt, input, runButton);
  const offlineNote = h(
    'p',
    { class: 'warning offline-note', role: 'status', 'data-testid': 'console-offline', hidden: true },
    'The car is offline: commands can be sent again when it connects.',
  );
  const clear = on(h('button', { type: 'button', class: 'secondary small' }, 'Clear'), {
    click: () => {
      output.replaceChildren();
      input.focus();
    },
  });

  // the vehicle PIN for Lock and Unlock: a field of their group, not a browser prompt
  const pinInput = h('input', {
    type: 'password',
    class: 'pin-input',
    inputmode: 'numeric',
    autocomplete: 'off',
    maxlength: '10',
    placeholder: 'PIN',
    'aria-label': `Vehicle PIN of ${ctx.id} for Lock and Unlock`,
    'aria-describedby': `pin-hint-${ctx.id.replace(/[^A-Za-z0-9_-]/g, '_')}`,
    'data-testid': 'action-pin',
  });
  const pinHint = h('span', { class: 'pin-hint muted small', id: `pin-hint-${ctx.id.replace(/[^A-Za-z0-9_-]/g, '_')}`, 'data-testid': 'pin-hint', 'aria-live': 'polite' });
  on(pinInput, { input: () => showPinHint('') });

  function showPinHint(text: string): void {
    pinHint.textContent = text;
    pinHint.classList.toggle('error', text !== '');
    pinInput.setAttribute('aria-invalid', text === '' ? 'false' : 'true');
  }

  const groups = new Map<string, HTMLElement>();
  const actionButtons: HTMLButtonElement[] = [];
  for (const a of ACTIONS) {
    let g = groups.get(a.group);
    if (!g) {
      g = h('div', { class: 'action-group', role: 'group', 'aria-label': a.group }, h('span', { class: 'group-label' }, a.group));
      if (a.mp.includes('{pin}')) g.append(pinInput);
      groups.set(a.group, g);
    }
    const b = on(h('button', { type: 'button', class: 'secondary', 'data-testid': a.testid }, a.label), { click: () => void runAction(a) });
    actionButtons.push(b);
    g.append(b);
  }
  groups.get('Locks')?.append(pinHint);

  const el = h(
    'div',
    { class: 'panel console' },
    offlineNote,
    h('div', { class: 'actions' }, ...groups.values()),
    h('div', { class: 'terminal' }, h('div', { class: 'terminal-head' }, h('span', {}, 'Console'), clear), output, form),
    h(
      'p',
      { class: 'muted small' },
      'Commands run on the vehicle module (one at a time per vehicle). ↑/↓ walk this vehicle’s command history.',
    ),
  );

  let historyList = loadHistory(ctx.id);
  /** position while walking the history with the arrows; historyList.length = the new line */
  let cursor = historyList.length;
  let draft = '';
  let alive = true;

  function scrollDown(): void {
    output.scrollTop = output.scrollHeight;
  }

  /** Appends an echoed command and returns where its output goes. */
  function entry(echo: Child): { out: HTMLElement; status: HTMLElement; done: (cls: string, text: string) => void } {
    const out = h('pre', { class: 'out pending' }, 'running…');
    const status = h('div', { class: 'result', 'data-testid': 'console-result' });
    output.append(h('div', { class: 'entry' }, h('div', { class: 'echo' }, echo), out, status));
    scrollDown();
    return {
      out,
      status,
      done(cls, text) {
        out.classList.remove('pending');
        status.className = `result ${cls}`;
        status.textContent = text;
        scrollDown();
      },
    };
  }

  async function run(text: string, type: CommandType, echo: Child): Promise<void> {
    const e = entry(echo);
    try {
      const r = await command(ctx.id, text, type);
      if (!alive) return;
      e.out.textContent = r.output.replace(/\r\n?/g, '\n');
      if (r.output === '') e.out.hidden = true;
      e.done(r.result === 0 ? 'ok' : 'failed', RESULT_TEXT[r.result] ?? `The car answered with result ${r.result}.`);
      e.status.title = `result ${r.result}`;
      e.status.dataset.result = String(r.result);
    } catch (err) {
      if (!alive) return;
      e.out.hidden = true;
      if (err instanceof ApiError) {
        e.done('error', err.message);
        e.status.title = err.technical;
        e.status.dataset.code = err.code;
        if (err.status === 403) ctx.refused();
      } else {
        e.done('error', `The command failed: ${String(err)}`);
      }
    }
  }

  /** Buttons and Run follow the car's link: disabled while it is offline. */
  function showOnline(online = ctx.link?.online): void {
    const offline = online === false;
    for (const b of [...actionButtons, runButton, pinInput]) b.disabled = offline;
    offlineNote.hidden = !offline;
  }

  function submitLine(): void {
    const text = input.value.trim();
    if (text === '' || runButton.disabled) return;
    input.value = '';
    if (historyList[historyList.length - 1] !== text) {
      historyList.push(text);
      historyList = historyList.slice(-HISTORY_MAX);
      saveHistory(ctx.id, historyList);
    }
    cursor = historyList.length;
    draft = '';
    void run(text, 'shell', h('span', { class: 'cmd' }, `${ctx.id}$ ${text}`));
  }

  async function runAction(a: Action): Promise<void> {
    if (ctx.link?.online === false) return;
    let mp = a.mp;
    let shown = a.mp;
    if (mp.includes('{pin}')) {
      const pin = pinInput.value.trim();
      if (!/^\d{1,10}$/.test(pin)) {
        showPinHint(pin === '' ? `Enter the vehicle PIN to ${a.label.toLowerCase()} the car.` : 'The PIN must be digits.');
        pinInput.focus();
        return;
      }
      showPinHint('');
      // sent once: the field does not keep the PIN
      pinInput.value = '';
      mp = mp.replace('{pin}', pin);
      shown = a.mp.replace('{pin}', '••••');
    }
    await run(mp, 'mp', h('span', { class: 'cmd' }, `# ${a.label} (MP command ${shown})`));
  }

  on(form, {
    submit: (ev) => {
      ev.preventDefault();
      submitLine();
    },
  });
  on(input, {
    keydown: (ev) => {
      if (ev.key === 'ArrowUp') {
        if (cursor === 0) return;
        if (cursor === historyList.length) draft = input.value;
        cursor--;
        input.value = historyList[cursor] ?? '';
      } else if (ev.key === 'ArrowDown') {
        if (cursor >= historyList.length) return;
        cursor++;
        input.value = cursor === historyList.length ? draft : (historyList[cursor] ?? '');
      } else {
        return;
      }
      ev.preventDefault();
      // caret at the end, as in a shell
      requestAnimationFrame(() => input.setSelectionRange(input.value.length, input.value.length));
    },
  });
  const unsubscribe = ctx.stream.subscribe({ link: (l) => showOnline(l.online) });
  showOnline();
  input.id = `console-input-${ctx.id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  prompt.htmlFor = input.id;

  return {
    el,
    shown() {
      requestAnimationFrame(() => input.focus());
    },
    destroy() {
      alive = false;
      unsubscribe();
    },
  };
}
