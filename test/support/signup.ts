/**
 * A real server with sign-up on and a real SMTP receiver (test/support/push/smtp-sink.ts, on
 * 127.0.0.1 port 0) that the account mails go to; JSON calls, and the token of a mailed link.
 *
 *   const s = await signupHarness(t, { registration: 'open' });
 *   await s.post('/api/account', { username: 'alice', email: 'a@example.org', password: '…' });
 *   const mail = await s.mail(1);                // the first mail, once it came in
 *   const token = tokenOf(mail, 'verify');       // from <public-url>/verify?token=…
 */
import type { TestContext } from 'node:test';
import type { RegistrationMode } from '../../src/auth/signup.js';
import type { ServerConfig } from '../../src/server/server.js';
import { httpHarness, type HttpHarness, type HttpResponse, type RequestOptions } from '../http/helpers.js';
import { SmtpSink, type SinkMessage } from './push/smtp-sink.js';

export const PUBLIC_URL = 'https://vts.example.org';
/** Cheap scrypt for the passwords of sign-ups and resets. */
const TEST_COST = { N: 1024, r: 8, p: 1 };

export interface SignupHarness extends HttpHarness {
  sink: SmtpSink;
  /** A JSON call; `json`: the body parsed. */
  post(path: string, body: unknown, opts?: RequestOptions): Promise<HttpResponse & { json: Record<string, unknown> }>;
  /** The `n`-th mail (1-based), once it came in. */
  mail(n: number): Promise<SinkMessage>;
  /** Resolves once the background work of the calls made so far (accounts, mails) is done. */
  settled(): Promise<void>;
  /** `POST /api/session`: the answer and the cookie it set. */
  signIn(username: string, password: string): Promise<{ status: number; json: Record<string, unknown>; cookie: string | undefined }>;
}

export interface SignupOptions {
  registration?: RegistrationMode;
  /** false: no --smtp-url. */
  mail?: boolean;
  /** false: no --public-url. */
  publicUrl?: boolean;
  config?: Partial<ServerConfig>;
}

export async function signupHarness(t: TestContext, o: SignupOptions = {}): Promise<SignupHarness> {
  const sink = await SmtpSink.start();
  t.after(() => sink.close());
  const h = await httpHarness(t, {
    ...o.config,
    push: { ...(o.mail === false ? {} : { smtpUrl: sink.url }), mailFrom: 'vts@example.org' },
    signup: { registration: o.registration ?? 'open', ...(o.publicUrl === false ? {} : { publicUrl: PUBLIC_URL }), passwordCost: TEST_COST },
  });
  const post: SignupHarness['post'] = async (path, body, opts = {}) => {
    const r = await h.request(path, { method: 'POST', ...opts, headers: { 'content-type': 'application/json', ...opts.headers }, body: JSON.stringify(body) });
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(r.body) as Record<string, unknown>;
    } catch {
      // not JSON: json stays empty
    }
    return { ...r, json };
  };
  return {
    ...h,
    sink,
    post,
    async mail(n) {
      return (await sink.waitForMessages(n))[n - 1]!;
    },
    settled: () => h.t.server.signup.service.settled(),
    async signIn(username, password) {
      const r = await post('/api/session', { username, password });
      return { status: r.status, json: r.json, cookie: r.headers['set-cookie']?.[0]?.split(';')[0] };
    },
  };
}

/** The whole message with its quoted-printable soft breaks and `=3D` undone (text and HTML parts). */
export function mailText(m: SinkMessage): string {
  return m.raw.replace(/=\r\n/g, '').replace(/=3D/gi, '=');
}

/** The token of the mail's `<public-url>/<page>?token=…` link (the text part's), checked to be the same in every part. */
export function tokenOf(m: SinkMessage, page: 'verify' | 'reset', base = PUBLIC_URL): string {
  const found = [...mailText(m).matchAll(new RegExp(`${base.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/${page}\\?token=([A-Za-z0-9_-]+)`, 'g'))].map((x) => x[1]!);
  if (found.length === 0) throw new Error(`no ${base}/${page}?token= link in the mail "${m.subject}"`);
  if (new Set(found).size !== 1) throw new Error(`different tokens in one mail: ${found.length}`);
  return found[0]!;
}
