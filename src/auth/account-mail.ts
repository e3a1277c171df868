/**
 * The mails of sign-up and recovery (docs/accounts.md "Sign-up and recovery"): each as plain text
 * and a simple HTML part, sent through the SMTP server of `--smtp-url` (nodemailer). What they
 * say is built here; the links they carry hold a secret, so neither the mail nor its link is ever
 * logged (only its kind and the user's name).
 */
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';

/** The SMTP server (as src/push/providers/mail.ts parses `--smtp-url`). */
export interface AccountSmtp {
  secure: boolean;
  host: string;
  port: number;
  auth?: { user: string; pass: string };
}

export interface AccountMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Sends account mails; `send` rejects when the SMTP server refuses or cannot be reached. */
export interface AccountMailer {
  send(mail: AccountMail): Promise<void>;
  close(): void;
}

const TIMEOUT_MS = 10_000;

/** A mailer on the SMTP server `smtp`, From `from`; `ca`: extra trusted certificates (tests). */
export function createAccountMailer(smtp: AccountSmtp, from: string, ca?: string): AccountMailer {
  const options: SMTPTransport.Options = {
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: 3 * TIMEOUT_MS,
    logger: false,
  };
  if (smtp.auth) options.auth = smtp.auth;
  if (ca !== undefined) options.tls = { ca };
  const transport = nodemailer.createTransport(options);
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    },
    close() {
      transport.close();
    },
  };
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A mail of paragraphs; a paragraph that is a `{ link }` becomes a button-like link (and the bare URL in the text). */
type Part = string | { link: string; label: string };

function compose(to: string, subject: string, site: string, parts: readonly Part[]): AccountMail {
  const text = parts.map((p) => (typeof p === 'string' ? p : `${p.label}:\n${p.link}`)).join('\n\n') + `\n\n-- \n${site}\n`;
  const body = parts
    .map((p) =>
      typeof p === 'string'
        ? `<p>${escapeHtml(p)}</p>`
        : `<p><a href="${escapeHtml(p.link)}" style="display:inline-block;padding:10px 18px;background:#1f6feb;color:#ffffff;border-radius:6px;text-decoration:none">${escapeHtml(p.label)}</a></p>` +
          `<p style="font-size:12px;color:#57606a">${escapeHtml(p.link)}</p>`,
    )
    .join('\n');
  const html =
    `<!doctype html><html><body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;font-size:15px;line-height:1.5;color:#1f2328;max-width:560px;margin:24px auto;padding:0 16px">\n` +
    `${body}\n<p style="font-size:12px;color:#57606a;border-top:1px solid #d0d7de;padding-top:8px">${escapeHtml(site)}</p>\n</body></html>\n`;
  return { to, subject, text, html };
}

/** The address of a signed-up account: follow the link within `hours`. */
export function verifyMail(to: string, user: string, link: string, hours: number, site: string): AccountMail {
  return compose(to, 'Confirm your mail address', site, [
    `Hello ${user},`,
    `someone, hopefully you, signed up on ${site} with the user name ${user} and this mail address. Confirm the address to start using the account (the link works once, for ${hours} hours):`,
    { link, label: 'Confirm my address' },
    'If it was not you, ignore this mail: the account stays unusable and nothing else happens.',
  ]);
}

/** A sign-up named an address that an account has already. */
export function addressTakenMail(to: string, user: string, resetPage: string, site: string): AccountMail {
  return compose(to, 'You already have an account', site, [
    'Hello,',
    `someone, hopefully you, tried to sign up on ${site} with this mail address. It belongs to an account already: its user name is ${user}.`,
    'If you forgot its password, set a new one here:',
    { link: resetPage, label: 'Reset my password' },
    'If it was not you, ignore this mail: nothing was changed.',
  ]);
}

/** A sign-up named a free address but a user name someone has. */
export function nameTakenMail(to: string, user: string, signupPage: string, site: string): AccountMail {
  return compose(to, 'Choose another user name', site, [
    'Hello,',
    `someone, hopefully you, tried to sign up on ${site} with this mail address and the user name ${user}. That name is not available: no account was made. Sign up again with another name:`,
    { link: signupPage, label: 'Sign up' },
    'If it was not you, ignore this mail.',
  ]);
}

/** A password reset: follow the link within `minutes`. */
export function resetMail(to: string, user: string, link: string, minutes: number, site: string): AccountMail {
  return compose(to, 'Reset your password', site, [
    `Hello ${user},`,
    `someone, hopefully you, asked to reset the password of your account on ${site}. Set a new one with this link (it works once, for ${minutes} minutes; every device signed in to the account is signed out then):`,
    { link, label: 'Set a new password' },
    'If it was not you, ignore this mail: your password stays as it is.',
  ]);
}
