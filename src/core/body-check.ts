/**
 * What the checks of a JSON body share (places, alert rules): the error that names the bad field,
 * thrown inside a check and turned into its answer at its end. Pure.
 */

/** A field of the body that is wrong, with the sentence that says how. */
export class BadField {
  constructor(
    readonly field: string,
    readonly message: string,
  ) {}
}

/** A JSON object (not null, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
