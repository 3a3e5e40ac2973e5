/**
 * The fixed markers in the prompts the agent writes, exported so that whoever reads a prompt (the offline
 * model, tests) finds its parts by these constants instead of by the printed text around them.
 */

/** First line of the nudge's request: tells a model (and the offline model) that this is a memory review. */
export const NUDGE_MARKER = '[memory review]'

/** Whether the review should also consolidate (the snapshot is above `compact_trigger_ratio`). */
export const CONSOLIDATE_MARKER = '[consolidate]'

/** Heading of the system prompt's section that holds the frozen memory snapshot. */
export const MEMORY_SECTION_HEADING = '# Memory (frozen at the start of this session)'

/** Start of the system prompt's last line, which gives the date. */
export const DATE_LINE_START = "Today's date is "
