/**
 * The rule for account passwords, the same wherever one is set: `vts user add`, `vts user passwd`,
 * the dashboard's `POST /api/password` (src/http/web-api/password.ts) and its form
 * (web/src/pages/account.ts imports this file, so keep it free of imports and of Node APIs).
 * It applies when a password is set: a shorter one stored before this rule still logs in.
 * Lengths count UTF-16 code units, as the browser's `minlength` does.
 */

/** The fewest characters a new account password may have. */
export const MIN_PASSWORD_LENGTH = 8;
/** The most characters a new account password may have (hashing a huge input is wasted work). */
export const MAX_PASSWORD_LENGTH = 1024;

/** What is wrong with a new account password, or null when it is fine; never contains the password. */
export function passwordProblem(password: string): string | null {
  if (password.length === 0) return 'the password is empty';
  if (password.length < MIN_PASSWORD_LENGTH) return `the password must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `the password is longer than ${MAX_PASSWORD_LENGTH} characters`;
  // the CLI reads a password as one line, so a password with a line break could never be typed there
  if (/[\r\n]/.test(password)) return 'the password contains a line break';
  return null;
}
