/**
 * Plain types that several rooms of the hub share (the handlers' port, the cluster interface, the
 * live watchers, the login replay): kept here, importing nothing, so that none of them has to
 * import another's module for a type.
 */

/** What live watchers of a vehicle hear (docs/web-api.md "Live updates"). */
export type LiveEvent =
  | { kind: 'record'; code: string; data: string; time: number }
  | { kind: 'notification'; type: string; text: string; time: number }
  | { kind: 'link' };

/** A stored car message, as forwarded messages name the one they pass on. */
export interface StoredRef {
  readonly code: string;
  readonly data: string;
  readonly time: number;
}
