/**
 * The text a SQLite row is indexed as, in SQL, for snippets. The message index is contentless (migration
 * 0015): it keeps no text, and a row's `search_text` holds no copy of its index text (maintenance.ts), so
 * a message's indexed text is rebuilt here from its columns as messageSearchText (search/index-text.ts)
 * builds it, without the CJK marks (snippet.ts splits CJK characters itself): the content, then each tool
 * call's name and arguments. (A row with a NUL keeps its copy: see messageIndex in maintenance.ts.)
 * Episodes keep their external-content index and their `search_text`.
 */
import { SLICE_CHARS } from '../../search/excerpt.ts'

// CASE, not AND: SQLite may evaluate either side of an AND first, and a JSON function fails on text that
// is not JSON (a row written by another tool); an element that is not an object adds nothing.
const MESSAGE_TEXT = `coalesce(nullif(t.search_text, ''), CASE WHEN t.tool_calls IS NULL OR NOT json_valid(t.tool_calls) THEN coalesce(t.content, '')
  WHEN json_type(t.tool_calls) <> 'array' THEN coalesce(t.content, '')
  ELSE coalesce(concat_ws(char(10), nullif(t.content, ''), (
    SELECT group_concat(CASE WHEN c.type = 'object' THEN
      coalesce(c.value ->> '$.function.name', '') || ' ' || coalesce(c.value ->> '$.function.arguments', '') END, char(10))
    FROM json_each(t.tool_calls) c)), '') END)`

/** The SQL of the text row `t` (a message or an episode) is indexed as. */
export const indexedText = (kind: 'message' | 'episode') =>
  kind === 'message' ? MESSAGE_TEXT : `coalesce(t.search_text, t.summary, '')`

/** The excerpt column of a hit (`t` the message or episode): the slice a snippet is made from first. */
export const sliceColumn = (kind: 'message' | 'episode') =>
  `substr(${indexedText(kind)}, 1, ${SLICE_CHARS + 1})`
