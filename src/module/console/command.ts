/**
 * The firmware's command tree (`OvmsCommand`, docs/protocol/commands.md §2.3, docs/protocol/module-console.md §2):
 * named commands with a title, a usage template and argument bounds, resolved token by token with
 * unique-prefix abbreviations. `dispatch` reproduces the firmware's answers to everything that
 * does not reach a handler: `Unrecognised command`, `Subcommand required`, `Usage: …` lines and
 * the `?` listings. Pure apart from what handlers do.
 */

/** Collects a command's output: text with LF line ends. */
export class Output {
  private readonly parts: string[] = [];
  private size = 0;

  /** @param inScript the command runs for a script (`OvmsCommand.Exec`), which waits for it */
  constructor(readonly inScript = false) {}

  /** Appends text as is. */
  write(text: string): void {
    if (text === '') return;
    this.parts.push(text);
    this.size += text.length;
  }

  /** Appends a line (and its line end). */
  puts(line: string): void {
    this.write(line + '\n');
  }

  /** Characters written so far. */
  get length(): number {
    return this.size;
  }

  text(): string {
    return this.parts.join('');
  }
}

export interface CommandContext {
  /** The arguments after the command's own name. */
  readonly args: readonly string[];
  readonly out: Output;
  readonly command: Command;
}

/** A command's action; a promise when it takes time (`sleep`). */
export type Handler = (ctx: CommandContext) => void | Promise<void>;

export interface CommandSpec {
  title: string;
  /**
   * Usage template after the command path: `<pin>`, `[-cimnpst] [<metric>]`. `$C` expands to the
   * children joined by `|`; lines after the first are extra help. Default: `$C` for a group
   * without handler, empty otherwise.
   */
  usage?: string;
  /** Argument bounds for the handler (defaults 0 and 0). */
  min?: number;
  max?: number;
  run?: Handler;
}

/** Byte-wise order, as the firmware's `strcmp`-ordered maps (ASCII names). */
function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class Command {
  private readonly kids = new Map<string, Command>();
  private sorted: Command[] | undefined;

  constructor(
    readonly name: string,
    readonly title: string,
    readonly parent: Command | undefined,
    private readonly template: string | undefined,
    readonly min: number,
    readonly max: number,
    readonly handler: Handler | undefined,
  ) {}

  /** A root: the nameless parent of the root commands. */
  static root(): Command {
    return new Command('', '', undefined, undefined, 0, 0, undefined);
  }

  /** Registers (or, when the name exists, returns) a child command. */
  add(name: string, spec: CommandSpec): Command {
    const existing = this.kids.get(name);
    if (existing) return existing;
    const cmd = new Command(name, spec.title, this, spec.usage, spec.min ?? 0, spec.max ?? 0, spec.run);
    this.kids.set(name, cmd);
    this.sorted = undefined;
    return cmd;
  }

  /** Removes a child; false when there is none of that name. */
  remove(name: string): boolean {
    this.sorted = undefined;
    return this.kids.delete(name);
  }

  child(name: string): Command | undefined {
    return this.kids.get(name);
  }

  /** The children in byte-wise name order. */
  children(): readonly Command[] {
    this.sorted ??= [...this.kids.values()].sort((a, b) => byteOrder(a.name, b.name));
    return this.sorted;
  }

  get isRoot(): boolean {
    return this.parent === undefined;
  }

  /** The names from the root command down to this one, joined by spaces (`metrics list`). */
  fullName(): string {
    if (!this.parent) return '';
    const above = this.parent.fullName();
    return above === '' ? this.name : `${above} ${this.name}`;
  }

  /**
   * The child a token selects: the exact name, else the only name starting with the token;
   * undefined when none or several do.
   */
  resolve(token: string): Command | undefined {
    const exact = this.kids.get(token);
    if (exact) return exact;
    let found: Command | undefined;
    for (const c of this.children()) {
      if (!c.name.startsWith(token)) continue;
      if (found) return undefined;
      found = c;
    }
    return found;
  }

  /** The `Usage: …` text (one or more lines, without the final line end). */
  usage(): string {
    const template = this.template === undefined || (this.template === '' && !this.handler) ? '$C' : this.template;
    const expanded = template.replace('$C', () => this.children().map((c) => c.name).join('|'));
    // The firmware prints `Usage: <path> <template>` (a trailing space when the template is
    // empty); at the root, where the path is empty, we print a single space.
    return this.isRoot ? `Usage: ${expanded}` : `Usage: ${this.fullName()} ${expanded}`;
  }
}

export interface DispatchResult {
  /** The deepest command the tokens resolved to (undefined when not even the first did). */
  command: Command | undefined;
  /** Settles when an asynchronous handler has finished; undefined when all was synchronous. */
  pending: Promise<void> | undefined;
}

function runHandler(cmd: Command, handler: Handler, args: readonly string[], out: Output): Promise<void> | undefined {
  const failed = (e: unknown): void => {
    out.puts(`ERROR: internal error: ${e instanceof Error ? e.message : String(e)}`);
  };
  try {
    const r = handler({ args, out, command: cmd });
    return r instanceof Promise ? r.catch(failed) : undefined;
  } catch (e) {
    failed(e);
    return undefined;
  }
}

/**
 * Resolves `argv` from `root` and runs the command it names, writing to `out` (`OvmsCommand::
 * Execute` of firmware ≥ 3.3.005). A handler never throws out of here: an exception becomes an
 * `ERROR: internal error: …` line.
 */
export function dispatch(root: Command, argv: readonly string[], out: Output): DispatchResult {
  let cmd = root;
  let args = argv;
  for (;;) {
    const handler = cmd.handler;
    if (handler && (cmd.children().length === 0 || args.length === 0)) {
      if (args.length < cmd.min || args.length > cmd.max || (args.length > 0 && args[args.length - 1] === '?')) {
        out.puts(cmd.usage());
        return { command: cmd, pending: undefined };
      }
      return { command: cmd, pending: runHandler(cmd, handler, args, out) };
    }
    const resolved = cmd.isRoot ? undefined : cmd;
    if (args.length === 0) {
      out.puts('Subcommand required');
      out.puts(cmd.usage());
      return { command: resolved, pending: undefined };
    }
    const token = args[0] as string;
    if (token === '?') {
      out.puts(cmd.usage());
      for (const c of cmd.children()) out.puts(`${c.name.slice(0, 20).padEnd(20)} ${c.title}`);
      return { command: resolved, pending: undefined };
    }
    const next = cmd.resolve(token);
    if (!next) {
      out.puts('Unrecognised command');
      if (!cmd.isRoot) out.puts(cmd.usage());
      return { command: resolved, pending: undefined };
    }
    cmd = next;
    args = args.slice(1);
  }
}
