-- The conversation-window index of 0008 goes: measured with and without it, it added no recall on the
-- LoCoMo dev conversations and cost about 211 bytes per message (docs/decisions/window-index.md). A
-- question's windows are scored from their turns' own scores (search/rank.ts). The speaker index of 0008
-- (messages_name_idx) stays: participant matching reads it.
DROP TABLE IF EXISTS `message_windows_fts`;--> statement-breakpoint
DROP TABLE IF EXISTS `window_marks`;
