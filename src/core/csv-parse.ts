/**
 * A CSV reader for files operators write (bulk registration, `vts vehicle add --from-csv`):
 * RFC 4180 fields (commas, double quotes with `""` inside, line breaks inside quotes), lines ended
 * by CRLF, LF or a lone CR, a byte-order mark at the start skipped, empty lines skipped. Pure: the
 * caller reads the file. A malformed row (text after a closing quote, a quote never closed) is
 * given as an error with its line number instead of fields, so that the caller can report it and
 * go on; the next row starts on the next line (after a quote never closed there is none).
 */

/** One row of a CSV text; `line` is the 1-based line the row starts on. */
export type CsvRow = { line: number; fields: string[] } | { line: number; error: string };

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;
const LF = 0x0a;
const BOM = 0xfeff;

export function parseCsv(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  const n = text.length;
  let i = text.charCodeAt(0) === BOM ? 1 : 0;
  let line = 1;
  /** Index after the line end at `j` (CRLF, LF or CR); `line` counted. */
  const afterLineEnd = (j: number): number => {
    line++;
    return text.charCodeAt(j) === CR && text.charCodeAt(j + 1) === LF ? j + 2 : j + 1;
  };
  while (i < n) {
    const start = line;
    const fields: string[] = [];
    let error: string | null = null;
    let quotedAny = false;
    for (;;) {
      let field: string;
      if (text.charCodeAt(i) === QUOTE) {
        quotedAny = true;
        i++;
        let begin = i;
        field = '';
        for (;;) {
          if (i >= n) {
            error = 'a quoted field is not closed';
            break;
          }
          const c = text.charCodeAt(i);
          if (c === QUOTE) {
            field += text.slice(begin, i);
            if (text.charCodeAt(i + 1) === QUOTE) {
              field += '"';
              i += 2;
              begin = i;
              continue;
            }
            i++;
            break;
          }
          if (c === LF || (c === CR && text.charCodeAt(i + 1) !== LF)) line++;
          i++;
        }
        if (error !== null) break;
        const next = text.charCodeAt(i);
        if (i < n && next !== COMMA && next !== CR && next !== LF) {
          error = 'text after a closing quote';
          while (i < n && text.charCodeAt(i) !== CR && text.charCodeAt(i) !== LF) i++;
          if (i < n) i = afterLineEnd(i);
          break;
        }
      } else {
        const begin = i;
        for (let c = text.charCodeAt(i); i < n && c !== COMMA && c !== CR && c !== LF; c = text.charCodeAt(++i));
        field = text.slice(begin, i);
      }
      fields.push(field);
      if (i >= n) break;
      if (text.charCodeAt(i) === COMMA) {
        i++;
        continue;
      }
      i = afterLineEnd(i);
      break;
    }
    if (error !== null) rows.push({ line: start, error });
    else if (fields.length > 1 || fields[0] !== '' || quotedAny) rows.push({ line: start, fields });
  }
  return rows;
}
