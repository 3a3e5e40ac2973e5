CREATE TABLE IF NOT EXISTS `window_marks` (
	`session_id` text PRIMARY KEY NOT NULL,
	`indexed_to` integer NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `messages_name_idx` ON `messages` (`name`) WHERE "messages"."name" IS NOT NULL AND "messages"."role" <> 'tool';--> statement-breakpoint
-- Conversation windows (store/window-index.ts): one row per message (rowid = its id) holding the indexed
-- text of the message before it in its session, its own and the one after. Contentless (the text is
-- already in messages), written in batches off the append path, never by a trigger; the rows of a
-- session's messages are deleted with the session (store/session-deletion.ts).
CREATE VIRTUAL TABLE IF NOT EXISTS `message_windows_fts` USING fts5(
  `body`,
  content='',
  contentless_delete=1,
  tokenize='porter unicode61 remove_diacritics 2'
);
