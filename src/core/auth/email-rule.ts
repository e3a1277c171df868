/**
 * What vts takes as a mail address at sign-up (src/http/web-api/account.ts) and in the
 * dashboard's form (web/src/pages/signup.ts imports this file: keep it free of imports and of
 * Node APIs): one `local@domain` of printable characters, a domain of DNS labels with a dot, at
 * most 254 characters in all. Not the whole of RFC 5322 (no quoted local parts, no comments, no
 * address literals): the address must work for the mail that proves it.
 */

export const MAX_EMAIL_LENGTH = 254;

const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}$/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** What is wrong with a mail address, or null when it is fine. */
export function emailProblem(email: string): string | null {
  if (email === '') return 'the mail address is empty';
  if (email.length > MAX_EMAIL_LENGTH) return `the mail address is longer than ${MAX_EMAIL_LENGTH} characters`;
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const labels = email.slice(at + 1).split('.');
  const ok =
    at > 0 &&
    LOCAL.test(local) &&
    !local.startsWith('.') &&
    !local.endsWith('.') &&
    !local.includes('..') &&
    labels.length >= 2 &&
    labels.every((l) => LABEL.test(l)) &&
    !/^\d+$/.test(labels[labels.length - 1]!);
  return ok ? null : 'not a mail address (name@example.org)';
}
