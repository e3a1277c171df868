/** A text of a service (an error message, an answer) as one line of a delivery's history. */

/** White space squeezed to single spaces, cut to `max` characters (the last one `…`). */
export function detailLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
