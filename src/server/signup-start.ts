/**
 * Sign-up and recovery at start (docs/accounts.md "Sign-up and recovery"): the mailer of account
 * mails on `--smtp-url` (the same server as mail notifications, From `--mail-from`), and one
 * warning line for each setting that leaves `--registration` lame: no mail (sign-up answers
 * VTS_ERR_MAIL_OFF), no `--public-url` (links use each request's own host).
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { createAccountMailer } from '../auth/account-mail.js';
import type { AuditLog } from '../auth/audit-log.js';
import { SignupService, type RegistrationMode } from '../auth/signup.js';
import type { SignupContext } from '../http/context.js';
import { parseSmtpUrl } from '../push/providers/mail.js';
import type { Store } from '../store/store.js';

export interface SignupConfig {
  /** `--registration`: default off. */
  registration?: RegistrationMode;
  /** `--public-url`: the dashboard's address in the mailed links. */
  publicUrl?: string;
  /** The scrypt cost of new passwords (tests); default hashPassword's. */
  passwordCost?: { N: number; r: number; p: number };
}

export interface MailConfig {
  smtpUrl?: string;
  mailFrom?: string;
  ca?: string;
}

export function startSignup(store: Store, log: Logger, config: SignupConfig = {}, mail: MailConfig = {}, now: () => number, audit?: AuditLog): SignupContext {
  const registration = config.registration ?? 'off';
  let mailer = null;
  if (mail.smtpUrl) {
    try {
      mailer = createAccountMailer(parseSmtpUrl(mail.smtpUrl), mail.mailFrom?.trim() || `vts@${hostname()}`, mail.ca);
    } catch {
      // the push side says what is wrong with the URL (once); account mails are off then
      mailer = null;
    }
  }
  if (registration !== 'off' && !mailer) {
    log.warn({ registration }, `--registration ${registration}: sign-up needs --smtp-url to mail the verification links; until then sign-ups are refused (VTS_ERR_MAIL_OFF)`);
  }
  if ((registration !== 'off' || mailer) && !config.publicUrl) {
    log.warn("no --public-url: the links in account mails (verification, password reset) use each request's own host name; set --public-url to the dashboard's address");
  }
  const service = new SignupService(store, log, { registration, mailer, now, ...(audit ? { audit } : {}), ...(config.passwordCost ? { passwordCost: config.passwordCost } : {}) });
  return { service, ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}) };
}
