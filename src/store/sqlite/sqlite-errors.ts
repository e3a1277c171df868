/** What the SQLite store makes of better-sqlite3's error codes. */

function sqliteCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Another process holding the lock, a full disk, a passing I/O error: worth another try; a constraint or a schema error would fail the same way again. */
export const retryable = (err: unknown): boolean => /^SQLITE_(BUSY|LOCKED|FULL|IOERR)/.test(sqliteCode(err) ?? '');

export function isUniqueViolation(err: unknown): boolean {
  const c = sqliteCode(err);
  return c === 'SQLITE_CONSTRAINT_UNIQUE' || c === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function isForeignKeyViolation(err: unknown): boolean {
  return sqliteCode(err) === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
