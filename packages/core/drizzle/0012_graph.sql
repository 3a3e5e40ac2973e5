CREATE TABLE IF NOT EXISTS `graph_blobs` (
	`thread_id` text NOT NULL,
	`checkpoint_ns` text DEFAULT '' NOT NULL,
	`channel` text NOT NULL,
	`version` text NOT NULL,
	`type` text NOT NULL,
	`value` blob,
	PRIMARY KEY(`thread_id`, `checkpoint_ns`, `channel`, `version`)
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `graph_checkpoints` (
	`thread_id` text NOT NULL,
	`checkpoint_ns` text DEFAULT '' NOT NULL,
	`checkpoint_id` text NOT NULL,
	`parent_checkpoint_id` text,
	`type` text NOT NULL,
	`checkpoint` blob NOT NULL,
	`metadata` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`thread_id`, `checkpoint_ns`, `checkpoint_id`)
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `graph_items` (
	`id` integer PRIMARY KEY NOT NULL,
	`owner` text DEFAULT '' NOT NULL,
	`namespace` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`search_text` text,
	`embedding` blob,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`ttl_minutes` real,
	`expires_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS `graph_items_key_idx` ON `graph_items` (`owner`,`namespace`,`key`);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `graph_items_expiry_idx` ON `graph_items` (`expires_at`);--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `graph_writes` (
	`thread_id` text NOT NULL,
	`checkpoint_ns` text DEFAULT '' NOT NULL,
	`checkpoint_id` text NOT NULL,
	`task_id` text NOT NULL,
	`idx` integer NOT NULL,
	`task_path` text DEFAULT '' NOT NULL,
	`channel` text NOT NULL,
	`type` text NOT NULL,
	`value` blob,
	PRIMARY KEY(`thread_id`, `checkpoint_ns`, `checkpoint_id`, `task_id`, `idx`)
);
--> statement-breakpoint
-- The long-term store's full-text index: external content over the items' search_text (the CJK split of
-- their indexed fields, written by store/graph-items.ts), kept by triggers as messages_fts is (0001).
CREATE VIRTUAL TABLE IF NOT EXISTS `graph_items_fts` USING fts5(
  `search_text`,
  content='graph_items',
  content_rowid='id',
  tokenize='porter unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `graph_items_fts_insert` AFTER INSERT ON `graph_items` WHEN new.`search_text` IS NOT NULL BEGIN
  INSERT INTO `graph_items_fts`(rowid, `search_text`) VALUES (new.`id`, new.`search_text`);
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `graph_items_fts_delete` AFTER DELETE ON `graph_items` WHEN old.`search_text` IS NOT NULL BEGIN
  INSERT INTO `graph_items_fts`(`graph_items_fts`, rowid, `search_text`) VALUES ('delete', old.`id`, old.`search_text`);
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `graph_items_fts_update_old` AFTER UPDATE OF `search_text` ON `graph_items` WHEN old.`search_text` IS NOT NULL BEGIN
  INSERT INTO `graph_items_fts`(`graph_items_fts`, rowid, `search_text`) VALUES ('delete', old.`id`, old.`search_text`);
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `graph_items_fts_update_new` AFTER UPDATE OF `search_text` ON `graph_items` WHEN new.`search_text` IS NOT NULL BEGIN
  INSERT INTO `graph_items_fts`(rowid, `search_text`) VALUES (new.`id`, new.`search_text`);
END;
