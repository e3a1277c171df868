/**
 * Sign-up and recovery (docs/accounts.md "Sign-up and recovery"): what `POST /api/account…`
 * does once the HTTP side has checked its input and the login throttle let it through.
 *
 * Nothing in an answer tells whether a name or an address is registered: after the input's
 * syntax (and the invitation code, which says nothing about accounts) the work that depends on
 * the accounts runs after the answer, in the background: creating the account and its mail, or
 * the note to the holder of an address that has one, or nothing. The password is hashed (scrypt)
 * in every branch all the same. Tokens are 32 random bytes (base64url), stored as their SHA-256,
 * single use: 48 hours to verify an address, 1 hour to reset a password.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { hashPassword } from './password.js';
import type { AuditLog } from './audit-log.js';
import type { Owner } from '../store/types.js';
import type { Store } from '../store/store.js';
import type { AccountTokenPurpose } from '../store/signup-store.js';
import { addressTakenMail, nameTakenMail, resetMail, verifyMail, type AccountMail, type AccountMailer } from './account-mail.js';

export type RegistrationMode = 'off' | 'open' | 'invite';
export const REGISTRATION_MODES: readonly RegistrationMode[] = ['off', 'open', 'invite'];

export const VERIFY_HOURS = 48;
export const RESET_MINUTES = 60;
/** Days a signed-up account that was never verified is kept (then the housekeeping removes it, freeing its name and address). */
export const UNVERIFIED_KEEP_DAYS = 7;

/** A token or an invitation code as stored: its SHA-256 (hex). */
export const secretHash = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** A new mailed token: 32 random bytes, base64url (43 characters). */
export const newAccountToken = (): string => randomBytes(32).toString('base64url');

/** A token as the links carry it: 43 characters of base64url. */
export const TOKEN_SYNTAX = /^[A-Za-z0-9_-]{43}$/;

/** A new invitation code: 15 random bytes, base64url (20 characters). */
export const newInviteCode = (): string => randomBytes(15).toString('base64url');

export interface SignupSettings {
  registration: RegistrationMode;
  /** Sends the mails; null: no `--smtp-url` (sign-up and recovery answer VTS_ERR_MAIL_OFF). */
  mailer: AccountMailer | null;
  /** Epoch seconds. */
  now(): number;
  /** Where a signed-up account is recorded (the audit log). */
  audit?: AuditLog;
  /** The scrypt cost of new passwords (tests make it cheap); default hashPassword's. */
  passwordCost?: { N: number; r: number; p: number };
}

export interface SignupRequest {
  username: string;
  email: string;
  password: string;
  /** The dashboard's address for the links (`--public-url`, else the request's own). */
  base: string;
}

/** The dashboard's pages that the mails link to. */
export const accountLinks = (base: string) => ({
  verify: (token: string) => `${base}/verify?token=${token}`,
  reset: (token: string) => `${base}/reset?token=${token}`,
  resetPage: `${base}/#/reset`,
  signupPage: `${base}/#/signup`,
});

const siteOf = (base: string): string => {
  try {
    return new URL(base).host;
  } catch {
    return base;
  }
};

export class SignupService {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly settings: SignupSettings,
  ) {}

  get registration(): RegistrationMode {
    return this.settings.registration;
  }

  /** Whether mails can be sent (`--smtp-url`). */
  get mailOn(): boolean {
    return this.settings.mailer !== null;
  }

  /** Uses an invitation code once; false when it is unknown, used up or expired. */
  useInvite(code: string): Promise<boolean> {
    return this.store.signup.useInvite(secretHash(code), this.settings.now());
  }

  /** The sign-up after the answer: the account and its mail, or a note to the address, or nothing. */
  signUp(r: SignupRequest): void {
    this.background('sign-up', async () => {
      const hash = await hashPassword(r.password, this.settings.passwordCost);
      const made = await this.store.signup.addUnverifiedOwner(r.username, hash, r.email, this.settings.now());
      const links = accountLinks(r.base);
      const site = siteOf(r.base);
      if ('owner' in made) {
        await this.settings.audit?.record({ action: 'user.add', actor: made.owner.name, via: 'web', target: made.owner.name, detail: { signup: true, verified: false } });
        const token = await this.newToken(made.owner.id, 'verify', VERIFY_HOURS * 3600);
        return this.mail('verify', made.owner.name, verifyMail(r.email, made.owner.name, links.verify(token), VERIFY_HOURS, site));
      }
      if (made.taken === 'email') {
        const holder = await this.store.signup.ownerByEmail(r.email);
        if (!holder || holder.disabled) return;
        return this.mail('address-taken', holder.name, addressTakenMail(holder.email ?? r.email, holder.name, links.resetPage, site));
      }
      return this.mail('name-taken', r.username, nameTakenMail(r.email, r.username, links.signupPage, site));
    });
  }

  /** A new verification link for an unverified account of that address (nothing otherwise). */
  resendVerification(email: string, base: string): void {
    this.background('verification resend', async () => {
      const owner = await this.store.signup.ownerByEmail(email);
      if (!owner || owner.verified || owner.disabled || !owner.email) return;
      await this.store.signup.removeTokens(owner.id, 'verify');
      const token = await this.newToken(owner.id, 'verify', VERIFY_HOURS * 3600);
      return this.mail('verify', owner.name, verifyMail(owner.email, owner.name, accountLinks(base).verify(token), VERIFY_HOURS, siteOf(base)));
    });
  }

  /** A reset link for the account of that address, unless disabled (nothing otherwise). */
  requestReset(email: string, base: string): void {
    this.background('password reset', async () => {
      const owner = await this.store.signup.ownerByEmail(email);
      if (!owner || owner.disabled || !owner.email) return;
      const token = await this.newToken(owner.id, 'reset', RESET_MINUTES * 60);
      return this.mail('reset', owner.name, resetMail(owner.email, owner.name, accountLinks(base).reset(token), RESET_MINUTES, siteOf(base)));
    });
  }

  /** Follows a verification link: the owner, verified now; undefined for an unknown, used or expired token. */
  async verify(token: string): Promise<Owner | undefined> {
    const ownerId = await this.store.signup.takeToken(secretHash(token), 'verify', this.settings.now());
    if (ownerId === undefined) return undefined;
    await this.store.signup.setVerified(ownerId);
    const owner = await this.store.getOwnerById(ownerId);
    if (owner) this.log.info({ user: owner.name }, 'account verified');
    return owner;
  }

  /**
   * Follows a reset link: sets the password (the link proved the address, so the account is
   * verified too) and deletes the account's other reset links; the owner, or undefined for an
   * unknown, used or expired token. The caller ends the account's sessions.
   */
  async confirmReset(token: string, password: string): Promise<Owner | undefined> {
    const ownerId = await this.store.signup.takeToken(secretHash(token), 'reset', this.settings.now());
    if (ownerId === undefined) return undefined;
    const owner = await this.store.getOwnerById(ownerId);
    if (!owner) return undefined;
    await this.store.setOwnerPassword(owner.name, await hashPassword(password, this.settings.passwordCost));
    await this.store.signup.setVerified(owner.id);
    await this.store.signup.removeTokens(owner.id, 'reset');
    this.log.info({ user: owner.name }, 'password reset');
    return { ...owner, verified: true };
  }

  /** Resolves once the background work asked so far is done (tests; shutdown). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  async close(): Promise<void> {
    await this.settled();
    this.settings.mailer?.close();
  }

  private async newToken(ownerId: number, purpose: AccountTokenPurpose, seconds: number): Promise<string> {
    const token = newAccountToken();
    const now = this.settings.now();
    await this.store.signup.addToken({ tokenHash: secretHash(token), ownerId, purpose, expires: now + seconds, created: now });
    return token;
  }

  private async mail(kind: string, user: string, mail: AccountMail): Promise<void> {
    const mailer = this.settings.mailer;
    if (!mailer) return;
    try {
      await mailer.send(mail);
      this.log.info({ user, mail: kind }, 'account mail sent');
    } catch (err) {
      // the error of nodemailer names the server's answer, never the message (the link)
      const message = err instanceof Error ? err.message : String(err);
      this.log.warn({ user, mail: kind, err: message }, 'account mail not sent: %s', message);
    }
  }

  private background(what: string, job: () => Promise<void>): void {
    const run = job()
      .catch((err: unknown) => this.log.error({ err }, `${what} failed`))
      .finally(() => this.pending.delete(run));
    this.pending.add(run);
  }
}
