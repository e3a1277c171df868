/**
 * A local stand-in for Expo's push API: POST /--/api/v2/push/send (an array of messages, answered
 * with a ticket each) and POST /--/api/v2/push/getReceipts (`{ids}`, answered with the receipts
 * known). Every ticket is `ok` and every receipt `ok` unless scripted; tickets are `ticket-1`,
 * `ticket-2`, … in the order the messages came in.
 *
 *   const expo = await ExpoEndpoint.start({ accessToken: 'tok' });   // requests without it: 401
 *   expo.scriptToken('ExponentPushToken[gone]', { error: 'DeviceNotRegistered' });
 *   expo.scriptReceipt('ExponentPushToken[a]', 'absent', 'ok');     // first check: not there yet
 *   expo.scriptRequest('send', { status: 503, retryAfter: 30 });      // the next send fails whole
 *   … createExpoProvider({ url: expo.url, accessToken: 'tok' }, deps) …
 *   expo.messages  // every message received, in order
 */
import { HttpEndpoint, type RecordedRequest, type ScriptedAnswer } from './http-receiver.js';

export const EXPO_SEND_PATH = '/--/api/v2/push/send';
export const EXPO_RECEIPTS_PATH = '/--/api/v2/push/getReceipts';

/** A ticket answer for a message: ok (with the next ticket id) or an error. */
export type ExpoTicketScript = 'ok' | { error: string; message?: string };
/** A receipt answer: ok, an error, or absent (not there yet). */
export type ExpoReceiptScript = 'ok' | 'absent' | { error: string; message?: string };

/** One message received by send, with the ticket it got (undefined for an error ticket). */
export interface ExpoReceived {
  message: Record<string, unknown>;
  ticket: string | undefined;
}

export class ExpoEndpoint extends HttpEndpoint {
  /** Every message send received, in order. */
  readonly received: ExpoReceived[] = [];
  /** Ticket id → the token its message was sent to. */
  readonly tickets = new Map<string, string>();
  private readonly requestScripts = { send: [] as ScriptedAnswer[], receipts: [] as ScriptedAnswer[] };
  private readonly tokenScripts = new Map<string, ExpoTicketScript[]>();
  private readonly receiptScripts = new Map<string, ExpoReceiptScript[]>();
  private nextTicket = 1;

  private constructor(private readonly accessToken: string | undefined) {
    super();
  }

  /** `accessToken`: requests without `Authorization: Bearer <it>` get 401, as Expo answers them. */
  static async start(options: { accessToken?: string } = {}): Promise<ExpoEndpoint> {
    return new ExpoEndpoint(options.accessToken).listen();
  }

  /** The messages received (without their tickets). */
  get messages(): Record<string, unknown>[] {
    return this.received.map((r) => r.message);
  }

  /** Answers for the next whole requests of a kind (a status, a body, Retry-After, a hang), before the normal behaviour. */
  scriptRequest(kind: 'send' | 'receipts', ...answers: ScriptedAnswer[]): this {
    this.requestScripts[kind].push(...answers);
    return this;
  }

  /** Ticket answers for the next messages to `token`, one each; then ok. */
  scriptToken(token: string, ...tickets: ExpoTicketScript[]): this {
    this.tokenScripts.set(token, [...(this.tokenScripts.get(token) ?? []), ...tickets]);
    return this;
  }

  /**
   * Receipt answers for a ticket id, or for every ticket of a token, one per check asking for it;
   * the last one stays. Unscripted tickets are ok; unknown ids absent.
   */
  scriptReceipt(ticketOrToken: string, ...receipts: ExpoReceiptScript[]): this {
    this.receiptScripts.set(ticketOrToken, [...(this.receiptScripts.get(ticketOrToken) ?? []), ...receipts]);
    return this;
  }

  protected override respond(req: RecordedRequest): ScriptedAnswer {
    if (req.method !== 'POST') return { status: 405, body: { errors: [{ code: 'METHOD_NOT_ALLOWED', message: 'POST only' }] } };
    const kind = req.path === EXPO_SEND_PATH ? 'send' : req.path === EXPO_RECEIPTS_PATH ? 'receipts' : undefined;
    if (kind === undefined) return { status: 404, body: { errors: [{ code: 'NOT_FOUND', message: 'no such API' }] } };
    if (this.accessToken !== undefined && req.headers.authorization !== `Bearer ${this.accessToken}`) {
      return { status: 401, body: { errors: [{ code: 'UNAUTHORIZED', message: 'The bearer token is invalid.' }] } };
    }
    const scripted = this.requestScripts[kind].shift();
    if (scripted) return scripted;
    let body: unknown;
    try {
      body = req.json();
    } catch {
      return { status: 400, body: { errors: [{ code: 'VALIDATION_ERROR', message: 'not JSON' }] } };
    }
    return kind === 'send' ? this.send(body) : this.receipts(body);
  }

  private send(body: unknown): ScriptedAnswer {
    const messages = Array.isArray(body) ? body : [body];
    if (messages.length > 100) return { status: 400, body: { errors: [{ code: 'PUSH_TOO_MANY_NOTIFICATIONS', message: 'more than 100 messages' }] } };
    const data = messages.map((m: unknown) => {
      const message = (typeof m === 'object' && m !== null ? m : {}) as Record<string, unknown>;
      const to = typeof message.to === 'string' ? message.to : '';
      const queue = this.tokenScripts.get(to);
      const script = queue?.shift() ?? 'ok';
      if (script === 'ok') {
        const id = `ticket-${this.nextTicket++}`;
        this.tickets.set(id, to);
        this.received.push({ message, ticket: id });
        return { status: 'ok', id };
      }
      this.received.push({ message, ticket: undefined });
      return { status: 'error', message: script.message ?? `"${to}" failed: ${script.error}`, details: { error: script.error } };
    });
    return { status: 200, body: { data } };
  }

  private receiptScript(id: string): ExpoReceiptScript {
    const token = this.tickets.get(id);
    const queue = this.receiptScripts.get(id) ?? (token !== undefined ? this.receiptScripts.get(token) : undefined);
    if (!queue || queue.length === 0) return token !== undefined ? 'ok' : 'absent';
    return queue.length > 1 ? (queue.shift() as ExpoReceiptScript) : (queue[0] as ExpoReceiptScript);
  }

  private receipts(body: unknown): ScriptedAnswer {
    const ids = (body as { ids?: unknown } | null)?.ids;
    if (!Array.isArray(ids)) return { status: 400, body: { errors: [{ code: 'VALIDATION_ERROR', message: '"ids" is required' }] } };
    const data: Record<string, unknown> = {};
    for (const id of ids) {
      if (typeof id !== 'string') continue;
      const script = this.receiptScript(id);
      if (script === 'absent') continue;
      data[id] = script === 'ok' ? { status: 'ok' } : { status: 'error', message: script.message ?? `receipt failed: ${script.error}`, details: { error: script.error } };
    }
    return { status: 200, body: { data } };
  }
}
