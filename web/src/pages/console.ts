/**
 * Vehicle / Console: a terminal-like panel that runs console commands through
 * `POST /api/command/<id>`, with a per-vehicle command history (localStorage, last 50) and
 * buttons for the common actions (MP commands).
 */
import { ApiError, command } from '../api';
import { h, on, type Child } from '../dom';
import type { CommandType } from '../types';
import type { Panel, VehicleContext } from './vehicle';

const HISTORY_MAX = 50;
const RESULT_TEXT: Record<number, string> = { 0: 'ok', 1: 'failed', 2: 'unsupported', 3: 'unimplemented' };

interface Action {
  testid: string;
  label: string;
  /** MP command; `{pin}` is asked for */
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
    placeholder: 'stat, charge status, help …',
    'data-testid': 'console-input',
  });
  const prompt = h('label', { class: 'prompt' }, `${ctx.id}$`);
  const form = h('form', { class: 'terminal-line' }, prompt, input);
  const clear = on(h('button', { type: 'button', class: 'secondary small' }, 'Clear'), {
    click: () => {
      output.replaceChildren();
      input.focus();
    },
  });

  const groups = new Map<string, HTMLElement>();
  const actionButtons: HTMLButtonElement[] = [];
  for (const a of ACTIONS) {
    let g = groups.get(a.group);
    if (!g) {
      g = h('div', { class: 'action-group', role: 'group', 'aria-label': a.group }, h('span', { class: 'group-label' }, a.group));
      groups.set(a.group, g);
    }
    const b = on(h('button', { type: 'button', class: 'secondary', 'data-testid': a.testid }, a.label), { click: () => void runAction(a) });
    actionButtons.push(b);
    g.append(b);
  }

  const el = h(
    'div',
    { class: 'panel console' },
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
  function entry(echo: Child): { out: HTMLElement; done: (cls: string, text: string) => void } {
    const out = h('pre', { class: 'out pending' }, 'running…');
    const status = h('div', { class: 'result' });
    output.append(h('div', { class: 'entry' }, h('div', { class: 'echo' }, echo), out, status));
    scrollDown();
    return {
      out,
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
      e.done(r.result === 0 ? 'ok' : 'failed', `result ${r.result} (${RESULT_TEXT[r.result] ?? 'unknown'})`);
    } catch (err) {
      if (!alive) return;
      e.out.hidden = true;
      if (err instanceof ApiError) {
        const hint =
          err.status === 409
            ? 'the vehicle is not connected'
            : err.status === 503
              ? 'too many commands are waiting for this vehicle'
              : err.status === 504
                ? 'the vehicle did not answer in time'
                : err.status === 403
                  ? 'not allowed'
                  : '';
        const where = err.status ? `error ${err.status} ${err.code}` : 'error';
        e.done('error', `${where}: ${err.message}${hint && !err.message.includes(hint) ? ` (${hint})` : ''}`);
      } else {
        e.done('error', `error: ${String(err)}`);
      }
    }
  }

  function submitLine(): void {
    const text = input.value.trim();
    if (text === '') return;
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
    let mp = a.mp;
    let shown = a.mp;
    if (mp.includes('{pin}')) {
      const pin = window.prompt(`${a.label} ${ctx.id}: enter the vehicle PIN`);
      if (pin === null) return;
      if (!/^\d{1,10}$/.test(pin.trim())) {
        entry(h('span', { class: 'cmd' }, `# ${a.label}`)).done('error', 'The PIN must be digits.');
        return;
      }
      mp = mp.replace('{pin}', pin.trim());
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
  input.id = `console-input-${ctx.id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  prompt.htmlFor = input.id;

  return {
    el,
    shown() {
      requestAnimationFrame(() => input.focus());
    },
    destroy() {
      alive = false;
    },
  };
}
