/**
 * One command's wait for the car's answer on the v2 link. The MP transport puts a waiter in the
 * car connection's queue (command-queue.ts) when it sends the command; the `c` handler hands each
 * answer record to the waiter at the head of the queue, once what the car sent before is
 * committed; the hub tells every waiter still queued when the car leaves.
 */
export interface CommandWaiter {
  /** An answer record from the car: `c…`, or `E…` for a paranoid command. */
  answer(code: string, data: string): void;
  /** The car's connection ended before the command was answered. */
  carLeft(): void;
}
