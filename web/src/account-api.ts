/**
 * The dashboard's client of sign-up and recovery (docs/web-api.md "Sign-up and recovery"): public
 * calls with a JSON body, no session needed; errors as ApiError with a sentence for the page.
 */
import { ApiError } from './api';
import { errorSentence } from './error-text';

export type RegistrationMode = 'off' | 'open' | 'invite';

export interface AccountOptions {
  /** the server sends mail: a password can be reset */
  mail: boolean;
  registration: RegistrationMode;
}

async function post<T>(path: string, body: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: path === '/api/account/options' ? 'GET' : 'POST',
      headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: path === '/api/account/options' ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'NETWORK', errorSentence(0, 'NETWORK'));
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    parsed = undefined;
  }
  if (res.ok) return parsed as T;
  const e = (parsed && typeof parsed === 'object' ? parsed : {}) as { error?: unknown; message?: unknown };
  const code = typeof e.error === 'string' ? e.error : `HTTP_${res.status}`;
  const detail = typeof e.message === 'string' ? e.message : '';
  throw new ApiError(res.status, code, errorSentence(res.status, code, detail), detail);
}

let options: Promise<AccountOptions> | null = null;

/** What the sign-in page may offer (asked once; nothing on a failure). */
export function accountOptions(): Promise<AccountOptions> {
  options ??= post<AccountOptions>('/api/account/options', undefined).catch((): AccountOptions => {
    options = null;
    return { mail: false, registration: 'off' };
  });
  return options;
}

export const signUp = (b: { username: string; email: string; password: string; invite?: string }) => post<{ accepted: true }>('/api/account', b);
export const verifyAccount = (token: string) => post<{ user: string; verified: true }>('/api/account/verify', { token });
export const resendVerification = (email: string) => post<{ accepted: true }>('/api/account/verify/resend', { email });
export const requestReset = (email: string) => post<{ accepted: true }>('/api/account/reset', { email });
export const confirmReset = (token: string, password: string) => post<{ user: string }>('/api/account/reset/confirm', { token, password });
