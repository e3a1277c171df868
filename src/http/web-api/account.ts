/**
 * Sign-up and recovery (docs/accounts.md "Sign-up and recovery", docs/web-api.md "Sign-up and
 * recovery"): public calls with a JSON body.
 * - `GET /api/account/options`: what the sign-in page may offer (`registration`, `mail`);
 * - `POST /api/account` `{"username","email","password"[,"invite"]}`: 202, whatever the accounts;
 * - `POST /api/account/verify` `{"token"}`, `POST /api/account/verify/resend` `{"email"}` (202);
 * - `POST /api/account/reset` `{"email"}` (202), `POST /api/account/reset/confirm`
 *   `{"token","password"}`: the new password, and every session of the account ends.
 * Every call goes through the login throttle: the mailing ones are charged to the address they
 * name (`mail:<address>`), whatever happens (the throttle's budget limits the mails anyone can
 * cause), the token ones to the client alone (`account-token`, per address: a wrong token costs,
 * a right one gives its attempt back).
 */
import type { FastifyRequest } from 'fastify';
import { emailProblem } from '../../core/auth/email-rule.js';
import { USER_NAME } from '../../core/auth/identifier-rules.js';
import { passwordProblem } from '../../core/auth/password-rule.js';
import { userAccount } from '../../auth/login-guard.js';
import { TOKEN_SYNTAX, type SignupService } from '../../auth/signup.js';
import type { ApiCall, ApiRoute } from '../api-call.js';
import { clientAddress } from '../params.js';
import { sendError, sendJson } from '../reply.js';
import { loginThrottled } from './session.js';

const ACCEPTED = { accepted: true };

const badInput = (call: ApiCall, message: string) => sendError(call.reply, { code: 'VTS_ERR_INVALID_INPUT', message });
const badToken = (call: ApiCall) => sendError(call.reply, { code: 'VTS_ERR_TOKEN_INVALID', message: 'the link is unknown, used or expired: ask for a new one' });

/** The body's fields when it is a JSON object (a form is refused: these calls take JSON only). */
function jsonBody(call: ApiCall): Record<string, unknown> | null {
  const type = String(call.req.headers['content-type'] ?? '').toLowerCase();
  const b = call.req.body;
  if (!type.startsWith('application/json') || b === null || typeof b !== 'object' || Array.isArray(b) || Buffer.isBuffer(b)) return null;
  return b as Record<string, unknown>;
}

/** A string field of the body (absent: ''); null when it is there but not a string. */
function field(body: Record<string, unknown>, name: string): string | null {
  const v = body[name];
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : null;
}

/** The fields `names` as strings, or the answer that says which is not one. */
function fields<K extends string>(call: ApiCall, names: readonly K[]): Record<K, string> | null {
  const body = jsonBody(call);
  if (!body) {
    badInput(call, 'a JSON object is expected (Content-Type: application/json)');
    return null;
  }
  const out = {} as Record<K, string>;
  for (const n of names) {
    const v = field(body, n);
    if (v === null) {
      badInput(call, `${n}: a string is expected`);
      return null;
    }
    out[n] = v;
  }
  return out;
}

/** The sign-up service when mail can be sent; else the answer (503 VTS_ERR_MAIL_OFF) was sent. */
function mailingService(call: ApiCall): SignupService | null {
  const service = call.ctx.signup?.service;
  if (!service?.mailOn) {
    sendError(call.reply, { code: 'VTS_ERR_MAIL_OFF', message: 'this server cannot send mail (no --smtp-url): ask its operator' });
    return null;
  }
  return service;
}

/** The dashboard's address for the links: `--public-url`, else the request's own scheme and host. */
function linkBase(call: ApiCall): string {
  const configured = call.ctx.signup?.publicUrl;
  if (configured) return configured.replace(/\/+$/, '');
  const req: FastifyRequest = call.req;
  return `${req.protocol}://${req.host}`;
}

/** A browser (it sends `Origin` or `Sec-Fetch-Site` with a POST) or another client, for the audit log. */
const viaOf = (call: ApiCall): 'web' | 'api' => (call.req.headers.origin !== undefined || call.req.headers['sec-fetch-site'] !== undefined ? 'web' : 'api');

/** An address as the throttle keys it. */
const mailAccount = (email: string): string => `mail:${email.trim().toLowerCase()}`;

/**
 * Runs `work` as an attempt that is always charged to `account` (it causes a mail, or could):
 * true when it ran, false when the throttle refused (the 429 answer was sent).
 */
async function charged(call: ApiCall, account: string, work: () => Promise<void>): Promise<boolean> {
  const outcome = await call.ctx.guard.attempt(clientAddress(call.req), account, async () => {
    await work();
    return null;
  });
  if (!outcome.ok && outcome.throttled) {
    loginThrottled(call, outcome.retryAfterSeconds);
    return false;
  }
  return true;
}

/** `GET /api/account/options`: `{"mail","registration"}` for the sign-in page. */
export const accountOptions: ApiRoute = {
  public: true,
  handler(call) {
    const s = call.ctx.signup?.service;
    const mail = s?.mailOn ?? false;
    return sendJson(call.reply, 200, { mail, registration: mail ? (s?.registration ?? 'off') : 'off' });
  },
};

/** `POST /api/account`: 202 for any well-formed sign-up; the rest happens in the background. */
export const signUp: ApiRoute = {
  public: true,
  async handler(call) {
    const mode = call.ctx.signup?.service.registration ?? 'off';
    if (mode === 'off') return sendError(call.reply, { code: 'VTS_ERR_REGISTRATION_OFF', message: 'this server does not take sign-ups: ask its operator for an account' });
    const service = mailingService(call);
    if (!service) return;
    const f = fields(call, ['username', 'email', 'password', 'invite'] as const);
    if (!f) return;
    const email = f.email.trim();
    if (!USER_NAME.test(f.username)) return badInput(call, 'username: 1-60 characters of A-Z a-z 0-9 . _ @ -');
    const emailWrong = emailProblem(email);
    if (emailWrong) return badInput(call, `email: ${emailWrong}`);
    const passwordWrong = passwordProblem(f.password);
    if (passwordWrong) return badInput(call, `password: ${passwordWrong}`);
    if (mode === 'invite' && f.invite.trim() === '') return sendError(call.reply, { code: 'VTS_ERR_INVITE_INVALID', message: 'this server takes sign-ups with an invitation code only' });
    let inviteOk = true;
    const ran = await charged(call, mailAccount(email), async () => {
      // the code is used whatever becomes of the sign-up (the answer must not tell)
      if (mode === 'invite') inviteOk = await service.useInvite(f.invite.trim());
    });
    if (!ran) return;
    if (!inviteOk) return sendError(call.reply, { code: 'VTS_ERR_INVITE_INVALID', message: 'unknown, used or expired invitation code' });
    service.signUp({ username: f.username, email, password: f.password, base: linkBase(call) });
    return sendJson(call.reply, 202, ACCEPTED);
  },
};

/** The owner a token names, through the throttle; null when the answer was sent. */
async function tokenCheck<T>(call: ApiCall, token: string, check: () => Promise<T | undefined>): Promise<T | null> {
  if (!TOKEN_SYNTAX.test(token)) {
    badToken(call);
    return null;
  }
  const outcome = await call.ctx.guard.attempt(clientAddress(call.req), 'account-token', async () => (await check()) ?? null, { perAddress: true });
  if (outcome.ok) return outcome.value;
  if (outcome.throttled) loginThrottled(call, outcome.retryAfterSeconds);
  else badToken(call);
  return null;
}

/** `POST /api/account/verify` `{"token"}`: 200 `{"user","verified":true}`. */
export const verifyAccount: ApiRoute = {
  public: true,
  async handler(call) {
    const service = call.ctx.signup?.service;
    const f = fields(call, ['token'] as const);
    if (!f) return;
    if (!service) return badToken(call);
    const owner = await tokenCheck(call, f.token.trim(), () => service.verify(f.token.trim()));
    if (!owner) return;
    await call.ctx.audit.record({ action: 'user.verify', actor: owner.name, via: viaOf(call), target: owner.name, detail: { client: clientAddress(call.req), link: true } });
    return sendJson(call.reply, 200, { user: owner.name, verified: true });
  },
};

/**
 * A public call `{"email"}` that mails that address if it has an account (`send`), always 202:
 * the answer tells nothing of the accounts.
 */
function mailingCall(send: (service: SignupService, email: string, base: string) => void): ApiRoute {
  return {
    public: true,
    async handler(call) {
      const service = mailingService(call);
      if (!service) return;
      const f = fields(call, ['email'] as const);
      if (!f) return;
      const email = f.email.trim();
      const wrong = emailProblem(email);
      if (wrong) return badInput(call, `email: ${wrong}`);
      if (!(await charged(call, mailAccount(email), async () => send(service, email, linkBase(call))))) return;
      return sendJson(call.reply, 202, ACCEPTED);
    },
  };
}

/** `POST /api/account/verify/resend` `{"email"}`: always 202. */
export const resendVerification = mailingCall((service, email, base) => service.resendVerification(email, base));

/** `POST /api/account/reset` `{"email"}`: always 202. */
export const requestReset = mailingCall((service, email, base) => service.requestReset(email, base));

/** `POST /api/account/reset/confirm` `{"token","password"}`: 200 `{"user"}`; every session of the account ends. */
export const confirmReset: ApiRoute = {
  public: true,
  async handler(call) {
    const { ctx } = call;
    const service = ctx.signup?.service;
    const f = fields(call, ['token', 'password'] as const);
    if (!f) return;
    // a bad password does not use the link up
    const wrong = passwordProblem(f.password);
    if (wrong) return badInput(call, `password: ${wrong}`);
    if (!service) return badToken(call);
    const owner = await tokenCheck(call, f.token.trim(), () => service.confirmReset(f.token.trim(), f.password));
    if (!owner) return;
    ctx.guard.throttle.forget(userAccount(owner.name));
    await ctx.sessions.endOwnerSessions(owner.id);
    await ctx.audit.record({ action: 'password.reset', actor: owner.name, via: viaOf(call), target: owner.name, detail: { client: clientAddress(call.req), link: true } });
    return sendJson(call.reply, 200, { user: owner.name });
  },
};
