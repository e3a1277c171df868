/**
 * The answer to an MP command: the `c` records (`<code>,<result>[,<data>]`, docs/protocol/messages.md §5.1)
 * turned into a result code and an output text. Pure.
 */

/** 0 ok, 1 failed, 2 unsupported, 3 unimplemented (docs/protocol/messages.md §5.1). */
export type MpResultCode = 0 | 1 | 2 | 3;

export interface CommandOutcome {
  result: MpResultCode;
  /** The output: for command 7 the console text with the module's CR line breaks as LF; for other
   *  commands the data of each record after `<code>,<result>,`, one record per line. */
  output: string;
}

/** Splits one `c` record: its code, result and data (everything after the second comma). */
export function parseResponse(data: string): { code: number; result: number; data: string } | null {
  const m = /^(\d+),(\d+)(?:,([\s\S]*))?$/.exec(data);
  if (!m) return null;
  return { code: Number(m[1]), result: Number(m[2]), data: m[3] ?? '' };
}

/** The CR line breaks of mp_encode as LF (the `;` that stands for a comma cannot be undone). */
export function decodeText(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** The outcome of a command from its records (in order). */
export function outcomeOf(records: readonly string[]): CommandOutcome {
  const parsed = records.map(parseResponse);
  const first = parsed[0];
  const result = (first && first.result <= 3 ? first.result : 1) as MpResultCode;
  if (first?.code === 7 && records.length === 1) return { result, output: decodeText(first.data) };
  const lines = parsed.map((p, k) => decodeText(p ? p.data : records[k]!));
  return { result, output: lines.join('\n') + (lines.length > 0 && lines.some((l) => l !== '') ? '\n' : '') };
}
