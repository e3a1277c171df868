/**
 * The words of `vts exec CAR notify raise text alert charge.stopped "Charging stopped"` as one
 * line for the module's console (microrl, see src/module/console/tokenizer.ts): spaces separate
 * tokens, and a token that starts with `"` or `'` runs to the same quote character, with no
 * escapes. A word that holds a space, starts with a quote or is empty is quoted, with `"` unless it
 * holds one, else with `'`; at most 10 quoted tokens on a line. Pure.
 */

/** Quoted tokens the module's console takes on one line (microrl). */
const MAX_QUOTED = 10;

const needsQuotes = (word: string): boolean => word === '' || word.includes(' ') || word.startsWith('"') || word.startsWith("'");

/**
 * The console line of `words`: joined by spaces, each word quoted where the console would split or
 * strip it otherwise.
 * @throws Error (its message says why) for a word the console cannot read as one token
 */
export function consoleLine(words: readonly string[]): string {
  let quoted = 0;
  const out = words.map((word) => {
    if (!needsQuotes(word)) return word;
    const q = !word.includes('"') ? '"' : !word.includes("'") ? "'" : undefined;
    if (q === undefined) throw new Error(`the word ${JSON.stringify(word)} holds a space (or starts with a quote) and both " and ': the module's console cannot read it as one word`);
    if (++quoted > MAX_QUOTED) throw new Error(`more than ${MAX_QUOTED} words need quotes (spaces in them): the module's console takes at most ${MAX_QUOTED} quoted words on a line`);
    return `${q}${word}${q}`;
  });
  return out.join(' ');
}
