-- The message index keeps no second copy of the text. Until now `search_text` held the index text of every
-- row whose index text differs from its content (CJK split by U+200B marks, tool calls' names and arguments
-- added): on agent traffic with some Chinese that was a third of the file (575 of 2,142 bytes a message on
-- the reference bench, docs/benchmarks.md). Now the index is contentless (it stores no text and reads none
-- back; contentless_delete, SQLite 3.43 and later, removes a row by its rowid alone), and `search_text` is
--   NULL  the row is indexed as its content (the insert trigger indexes it);
--   ''    its writer hands the index text to the index itself, right after the INSERT (the store does:
--         dialects/sqlite/maintenance.ts), so the row holds no copy;
--   text  the row is indexed as that text (a row with a NUL keeps its copy: SQLite's text functions stop at
--         a NUL, and snippets are made from the copy, which has a space there).
DROP TRIGGER IF EXISTS `messages_fts_insert`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `messages_fts_delete`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `messages_fts_update`;--> statement-breakpoint
DROP TABLE IF EXISTS `messages_fts`;--> statement-breakpoint
DROP VIEW IF EXISTS `messages_fts_source`;--> statement-breakpoint
CREATE VIRTUAL TABLE `messages_fts` USING fts5(
  `body`,
  content='',
  contentless_delete=1,
  tokenize='porter unicode61 remove_diacritics 2'
);--> statement-breakpoint
-- the rows stored before: indexed from the text they were indexed from, then their copies dropped
INSERT INTO `messages_fts`(rowid, `body`) SELECT `id`, coalesce(`search_text`, `content`, '') FROM `messages`;--> statement-breakpoint
UPDATE `messages` SET `search_text` = '' WHERE `search_text` IS NOT NULL
  AND instr(coalesce(`content`, ''), char(0)) = 0 AND instr(coalesce(`tool_calls`, ''), '\u0000') = 0;--> statement-breakpoint
CREATE TRIGGER `messages_fts_insert` AFTER INSERT ON `messages` WHEN new.`search_text` IS NOT '' BEGIN
  INSERT INTO `messages_fts`(rowid, `body`) VALUES (new.`id`, coalesce(new.`search_text`, new.`content`, ''));
END;--> statement-breakpoint
CREATE TRIGGER `messages_fts_delete` AFTER DELETE ON `messages` BEGIN
  DELETE FROM `messages_fts` WHERE rowid = old.`id`;
END;--> statement-breakpoint
-- A new index text, or a new content of a row without one, reindexes the row. A writer that sets '' hands
-- the index the new text itself; another tool that changes the content of such a row gets it indexed as
-- that content (store.checkIntegrity() then reports the row, and store.rebuildSearchIndex() mends it).
CREATE TRIGGER `messages_fts_update` AFTER UPDATE OF `content`, `search_text` ON `messages`
WHEN new.`search_text` IS NOT '' OR new.`content` IS NOT old.`content` BEGIN
  DELETE FROM `messages_fts` WHERE rowid = old.`id`;
  INSERT INTO `messages_fts`(rowid, `body`) VALUES (new.`id`, coalesce(nullif(new.`search_text`, ''), new.`content`, ''));
END;
