/**
 * The dashboard's calls of the account's security (docs/web-api.md "Account and second factors"):
 * the account, API password logins, TOTP enrolment and removal, passkeys (registration and
 * sign-in through @simplewebauthn/browser, which speaks to navigator.credentials).
 */
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { adoptSession, securityCall as call } from './api';
import type { SessionInfo } from './types';

export interface AccountInfo {
  user: string;
  email: string | null;
  verified: boolean;
  admin: boolean;
  apiPasswords: boolean;
  totpEnabled: boolean;
  recoveryCodesLeft: number;
  passkeys: number;
}

export interface PasskeyRow {
  id: string;
  name: string;
  created: number;
  lastUsed: number | null;
  transports: string[];
}

const enc = encodeURIComponent;

export const account = (): Promise<AccountInfo> => call('/api/account');

export const setApiPasswords = (allowed: boolean): Promise<AccountInfo> => call('/api/account', { method: 'PUT', json: { apiPasswords: allowed } });

export const beginTotp = (): Promise<{ secret: string; uri: string }> => call('/api/account/totp', { method: 'POST' });

/** A wrong code is a 401 of its own (`VTS_ERR_TOTP_INVALID`), not a session that ended. */
export const confirmTotp = (code: string): Promise<{ recoveryCodes: string[] }> =>
  call('/api/account/totp/confirm', { method: 'POST', json: { code }, sessionCall: true });

export const disableTotp = (code: string): Promise<void> => call('/api/account/totp', { method: 'DELETE', json: { code }, sessionCall: true });

export const passkeys = (): Promise<PasskeyRow[]> => call('/api/account/passkeys');

export const renamePasskey = (id: string, name: string): Promise<PasskeyRow> => call(`/api/account/passkeys/${enc(id)}`, { method: 'PUT', json: { name } });

export const removePasskey = (id: string): Promise<void> => call(`/api/account/passkeys/${enc(id)}`, { method: 'DELETE' });

/** Whether this browser can make and use passkeys at all. */
export const passkeysSupported = (): boolean => typeof window.PublicKeyCredential === 'function';

/** Registers a passkey of this device: the server's options, the authenticator, the server's check. */
export async function addPasskey(name: string): Promise<PasskeyRow> {
  const { challengeId, options } = await call<{ challengeId: string; options: PublicKeyCredentialCreationOptionsJSON }>('/api/account/passkeys/options', { method: 'POST' });
  const response = await startRegistration({ optionsJSON: options });
  return call('/api/account/passkeys', { method: 'POST', json: { challengeId, response, name } });
}

/** Signs in with a passkey (no user name: the authenticator offers the passkeys it holds for this site). */
export async function signInWithPasskey(): Promise<SessionInfo> {
  const { challengeId, options } = await call<{ challengeId: string; options: PublicKeyCredentialRequestOptionsJSON }>('/api/session/passkey/options', {
    method: 'POST',
    sessionCall: true,
  });
  const response = await startAuthentication({ optionsJSON: options });
  return adoptSession(await call<SessionInfo>('/api/session/passkey', { method: 'POST', json: { challengeId, response }, sessionCall: true }));
}
