/**
 * An owner's second factors and sign-in settings (issue 31, docs/accounts.md "A second factor"),
 * part of the Store on both databases (`store.factors`): whether the account password logs in on
 * the API v2 / MP / MQTT, the TOTP secret (sealed by the caller: the store never sees it in clear)
 * with the last time step used, the recovery codes (hashed), the passkeys (WebAuthn credentials),
 * and the short-lived challenges of a WebAuthn ceremony (kept here, so that any node of a cluster
 * finishes what another began). Direct writes; everything goes with its owner (ON DELETE CASCADE).
 */

export interface TotpState {
  /** The sealed secret (null: none, or enrolment never begun). */
  secret: string | null;
  enabled: boolean;
  /** The last time step whose code was accepted (0: none). */
  step: number;
}

export interface Passkey {
  /** The credential id (base64url). */
  id: string;
  ownerId: number;
  /** The COSE public key (base64url). */
  publicKey: string;
  counter: number;
  /** The authenticator's transports (`internal`, `usb`, `hybrid`…). */
  transports: string[];
  name: string;
  created: number;
  lastUsed: number | null;
}

export interface AuthChallenge {
  /** A random id the client sends back with its answer. */
  id: string;
  /** The owner of a registration (null: a sign-in, whose owner the answer tells). */
  ownerId: number | null;
  purpose: 'passkey-register' | 'passkey-signin';
  challenge: string;
  /** Epoch seconds after which the challenge is void. */
  expires: number;
}

export interface FactorsStore {
  /** @returns false when there is no such owner */
  setApiPasswords(ownerId: number, allowed: boolean): Promise<boolean>;

  getTotp(ownerId: number): Promise<TotpState | undefined>;
  /** A new secret, not enabled yet (an enabled TOTP is kept: false). */
  beginTotp(ownerId: number, sealedSecret: string): Promise<boolean>;
  /**
   * Enables the begun TOTP whose first code was of `step`, with these recovery codes (hashed) in
   * place of any others. False when it is not begun or already enabled.
   */
  enableTotp(ownerId: number, step: number, recoveryHashes: readonly string[]): Promise<boolean>;
  /** Removes the TOTP secret and the recovery codes. */
  disableTotp(ownerId: number): Promise<void>;
  /** Takes `step` as used when it is later than the last one used (one winner on every node); false: used already. */
  useTotpStep(ownerId: number, step: number): Promise<boolean>;
  /** Uses up the recovery code of this hash; false when the owner has none such. */
  useRecoveryCode(ownerId: number, codeHash: string): Promise<boolean>;
  countRecoveryCodes(ownerId: number): Promise<number>;

  /** @throws VtsError VTS_ERR_CONFLICT when the credential is registered already */
  addPasskey(p: Passkey): Promise<void>;
  getPasskey(id: string): Promise<Passkey | undefined>;
  listPasskeys(ownerId: number): Promise<Passkey[]>;
  /** @returns false when the owner has no such passkey */
  renamePasskey(ownerId: number, id: string, name: string): Promise<boolean>;
  /** @returns false when the owner has no such passkey */
  removePasskey(ownerId: number, id: string): Promise<boolean>;
  /** A sign-in with the passkey: its new signature counter and the time. */
  usePasskey(id: string, counter: number, time: number): Promise<void>;

  /** Keeps a challenge (and drops those expired before `now`). */
  putChallenge(c: AuthChallenge, now: number): Promise<void>;
  /** The challenge `id` of `purpose`, removed (single use); undefined when none or expired at `now`. */
  takeChallenge(id: string, purpose: AuthChallenge['purpose'], now: number): Promise<AuthChallenge | undefined>;
}

export interface PasskeyRow {
  id: string;
  owner_id: number;
  public_key: string;
  counter: number;
  transports: string;
  name: string;
  created: number;
  last_used: number | null;
}

export const PASSKEY_COLUMNS = 'id, owner_id, public_key, counter, transports, name, created, last_used';

export const toPasskey = (r: PasskeyRow): Passkey => ({
  id: r.id,
  ownerId: Number(r.owner_id),
  publicKey: r.public_key,
  counter: Number(r.counter),
  transports: r.transports === '' ? [] : r.transports.split(','),
  name: r.name,
  created: Number(r.created),
  lastUsed: r.last_used === null ? null : Number(r.last_used),
});

export interface ChallengeRow {
  id: string;
  owner_id: number | null;
  purpose: string;
  challenge: string;
  expires: number;
}

export const toChallenge = (r: ChallengeRow): AuthChallenge => ({
  id: r.id,
  ownerId: r.owner_id === null ? null : Number(r.owner_id),
  purpose: r.purpose as AuthChallenge['purpose'],
  challenge: r.challenge,
  expires: Number(r.expires),
});
