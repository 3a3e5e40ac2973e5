-- Full-text search over messages and episodes: external-content FTS5 tables that hold no copy of the
-- text. Each row is indexed as coalesce(search_text, content): the application fills search_text only
-- when the indexed text differs from the content (CJK characters split into single-character tokens,
-- tool-call names and arguments added), so plain messages are stored once.
CREATE VIEW `messages_fts_source` AS SELECT `id`, coalesce(`search_text`, `content`, '') AS `body` FROM `messages`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `messages_fts` USING fts5(
  `body`,
  content='messages_fts_source',
  content_rowid='id',
  tokenize='porter unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE TRIGGER `messages_fts_insert` AFTER INSERT ON `messages` BEGIN
  INSERT INTO `messages_fts`(rowid, `body`) VALUES (new.`id`, coalesce(new.`search_text`, new.`content`, ''));
END;
--> statement-breakpoint
CREATE TRIGGER `messages_fts_delete` AFTER DELETE ON `messages` BEGIN
  INSERT INTO `messages_fts`(`messages_fts`, rowid, `body`) VALUES ('delete', old.`id`, coalesce(old.`search_text`, old.`content`, ''));
END;
--> statement-breakpoint
CREATE TRIGGER `messages_fts_update` AFTER UPDATE OF `content`, `search_text` ON `messages` BEGIN
  INSERT INTO `messages_fts`(`messages_fts`, rowid, `body`) VALUES ('delete', old.`id`, coalesce(old.`search_text`, old.`content`, ''));
  INSERT INTO `messages_fts`(rowid, `body`) VALUES (new.`id`, coalesce(new.`search_text`, new.`content`, ''));
END;
--> statement-breakpoint
CREATE VIEW `episodes_fts_source` AS SELECT `id`, coalesce(`search_text`, `summary`) AS `body` FROM `episodes`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `episodes_fts` USING fts5(
  `body`,
  content='episodes_fts_source',
  content_rowid='id',
  tokenize='porter unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE TRIGGER `episodes_fts_insert` AFTER INSERT ON `episodes` BEGIN
  INSERT INTO `episodes_fts`(rowid, `body`) VALUES (new.`id`, coalesce(new.`search_text`, new.`summary`));
END;
--> statement-breakpoint
CREATE TRIGGER `episodes_fts_delete` AFTER DELETE ON `episodes` BEGIN
  INSERT INTO `episodes_fts`(`episodes_fts`, rowid, `body`) VALUES ('delete', old.`id`, coalesce(old.`search_text`, old.`summary`));
END;
--> statement-breakpoint
CREATE TRIGGER `episodes_fts_update` AFTER UPDATE OF `summary`, `search_text` ON `episodes` BEGIN
  INSERT INTO `episodes_fts`(`episodes_fts`, rowid, `body`) VALUES ('delete', old.`id`, coalesce(old.`search_text`, old.`summary`));
  INSERT INTO `episodes_fts`(rowid, `body`) VALUES (new.`id`, coalesce(new.`search_text`, new.`summary`));
END;
--> statement-breakpoint
-- Rows written before this migration (a database upgraded from 0000) are indexed now.
INSERT INTO `messages_fts`(`messages_fts`) VALUES ('rebuild');
--> statement-breakpoint
INSERT INTO `episodes_fts`(`episodes_fts`) VALUES ('rebuild');
