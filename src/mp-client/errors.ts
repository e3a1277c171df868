/** Errors raised by the MP client library; each carries a stable `code`. */

export type MpClientErrorCode =
  /** The TCP/TLS/WebSocket connection could not be established. */
  | 'MP_CONNECT_FAILED'
  /** The server closed (or reset) the connection before its welcome reply arrived. */
  | 'MP_LOGIN_CLOSED'
  /** No welcome reply within the login timeout. */
  | 'MP_LOGIN_TIMEOUT'
  /** The server's welcome reply was malformed or did not authenticate. */
  | 'MP_LOGIN_REJECTED'
  /** No (matching) message within the given time. */
  | 'MP_TIMEOUT'
  /** The connection is closed and no buffered message is left. */
  | 'MP_CLOSED';

export class MpClientError extends Error {
  readonly code: MpClientErrorCode;
  /**
   * MP_LOGIN_REJECTED: the server's reply line. It holds the server's token and digest, so it is
   * kept out of the message (which ends up in logs) and shown only to whoever asks for it.
   */
  readonly reply: string | undefined;

  constructor(code: MpClientErrorCode, message: string, options?: { cause?: unknown; reply?: string }) {
    super(`${code}: ${message}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MpClientError';
    this.code = code;
    this.reply = options?.reply;
  }
}

export function isMpClientError(err: unknown, code?: MpClientErrorCode): err is MpClientError {
  return err instanceof MpClientError && (code === undefined || err.code === code);
}
