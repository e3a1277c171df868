/**
 * The background output of `run <cmd> [; <cmd>…]` (docs/protocol/commands.md §7): the module answers
 * the command at once and sends each background command's output later as an info notification
 * (`PI…`). The command service registers here, before the command is sent, for as many outputs
 * as the command starts; they come in the order the `run`s started (the v2 link does not say
 * which command an output belongs to).
 */
import type { MpCommand } from '../../core/commands/request.js';

interface Waiter {
  /** Background commands whose output is still awaited. */
  remaining: number;
  outputs: string[];
  done: () => void;
}

export interface ExpectedRun {
  /** Resolves with the outputs that came by the deadline (epoch ms). */
  wait(deadline: number): Promise<string[]>;
  cancel(): void;
}

export class RunWaiters {
  private readonly byVehicle = new Map<string, Waiter[]>();

  constructor(private readonly now: () => number) {}

  /** An info notification of the vehicle: the output of the oldest `run` still waiting. */
  output(vehicleId: string, text: string): void {
    const waiter = this.byVehicle.get(vehicleId)?.[0];
    if (!waiter) return;
    waiter.outputs.push(text);
    if (--waiter.remaining === 0) waiter.done();
  }

  expect(vehicleId: string, count: number): ExpectedRun {
    const waiter: Waiter = { remaining: count, outputs: [], done: () => undefined };
    let finished = false;
    const arrived = new Promise<void>((resolve) => {
      waiter.done = () => {
        finished = true;
        resolve();
      };
    });
    const list = this.byVehicle.get(vehicleId) ?? [];
    list.push(waiter);
    this.byVehicle.set(vehicleId, list);
    const cancel = (): void => {
      const i = list.indexOf(waiter);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0 && this.byVehicle.get(vehicleId) === list) this.byVehicle.delete(vehicleId);
    };
    return {
      cancel,
      wait: async (deadline) => {
        if (!finished) {
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([arrived, new Promise<void>((r) => (timer = setTimeout(r, Math.max(0, deadline - this.now()))))]);
          clearTimeout(timer);
        }
        cancel();
        return waiter.outputs;
      },
    };
  }
}

/** How many background commands a shell `run …` starts (0 for anything else). */
export function backgroundCommands(cmd: MpCommand): number {
  if (cmd.code !== 7) return 0;
  const m = /^\s*run(?:\s+-\S+)*\s+(.+)$/.exec(cmd.params);
  if (!m) return 0;
  // commands are separated by a `;` token of their own (`run stat ; location`)
  return m[1]!
    .split(/\s+;(?=\s|$)/)
    .filter((c) => c.trim() !== '').length;
}
