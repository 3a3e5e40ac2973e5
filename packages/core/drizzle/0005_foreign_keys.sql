-- Referential integrity in the schema: messages, episodes and model calls go with their session (ON DELETE
-- CASCADE) and children are detached from a deleted parent (ON DELETE SET NULL). SQLite adds foreign keys
-- only by rebuilding a table; this is drizzle-kit's rebuild, hand-ordered so that it keeps every row
-- whether foreign keys are enforced on the migrating connection or not (PRAGMA foreign_keys cannot change
-- inside the migration's transaction):
--   1. rows that point at no session would violate the new keys: they are removed (their session is
--      gone, nothing can reach them) and dangling parent links cleared, with the triggers still in place;
--   2. the triggers and the FTS source views go, so no rename trips over a view of a missing table;
--   3. sessions is rebuilt first, while no table references it (its own parent key names the new table,
--      which the rename updates), so dropping the old table starts no ON DELETE action;
--   4. the tables that reference sessions are rebuilt, ids kept, so the FTS indexes still match;
--   5. the views and triggers come back exactly as 0001 and 0003 made them.
DELETE FROM `messages` WHERE `session_id` NOT IN (SELECT `id` FROM `sessions`);
--> statement-breakpoint
DELETE FROM `episodes` WHERE `session_id` NOT IN (SELECT `id` FROM `sessions`);
--> statement-breakpoint
DELETE FROM `model_calls` WHERE `session_id` NOT IN (SELECT `id` FROM `sessions`);
--> statement-breakpoint
UPDATE `sessions` SET `parent_session_id` = NULL WHERE `parent_session_id` NOT IN (SELECT `id` FROM `sessions`);
--> statement-breakpoint
DROP TRIGGER `messages_fts_insert`;
--> statement-breakpoint
DROP TRIGGER `messages_fts_delete`;
--> statement-breakpoint
DROP TRIGGER `messages_fts_update`;
--> statement-breakpoint
DROP TRIGGER `episodes_fts_insert`;
--> statement-breakpoint
DROP TRIGGER `episodes_fts_delete`;
--> statement-breakpoint
DROP TRIGGER `episodes_fts_update`;
--> statement-breakpoint
DROP TRIGGER `messages_count_insert`;
--> statement-breakpoint
DROP TRIGGER `messages_count_delete`;
--> statement-breakpoint
DROP TRIGGER `messages_count_update`;
--> statement-breakpoint
DROP VIEW `messages_fts_source`;
--> statement-breakpoint
DROP VIEW `episodes_fts_source`;
--> statement-breakpoint
CREATE TABLE `__new_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`user_id` text,
	`model` text,
	`title` text,
	`system_prompt` text,
	`parent_session_id` text,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	`end_reason` text,
	`message_count` integer DEFAULT 0 NOT NULL,
	`tool_call_count` integer DEFAULT 0 NOT NULL,
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`cost_usd` real DEFAULT 0 NOT NULL,
	FOREIGN KEY (`parent_session_id`) REFERENCES `__new_sessions`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
INSERT INTO `__new_sessions`("id", "source", "user_id", "model", "title", "system_prompt", "parent_session_id", "started_at", "ended_at", "end_reason", "message_count", "tool_call_count", "input_tokens", "output_tokens", "cost_usd") SELECT "id", "source", "user_id", "model", "title", "system_prompt", "parent_session_id", "started_at", "ended_at", "end_reason", "message_count", "tool_call_count", "input_tokens", "output_tokens", "cost_usd" FROM `sessions`;
--> statement-breakpoint
DROP TABLE `sessions`;
--> statement-breakpoint
ALTER TABLE `__new_sessions` RENAME TO `sessions`;
--> statement-breakpoint
CREATE INDEX `sessions_source_started_at_idx` ON `sessions` (`source`,`started_at`);
--> statement-breakpoint
CREATE INDEX `sessions_user_started_at_idx` ON `sessions` (`user_id`,`started_at`);
--> statement-breakpoint
CREATE INDEX `sessions_parent_idx` ON `sessions` (`parent_session_id`);
--> statement-breakpoint
CREATE TABLE `__new_messages` (
	`id` integer PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`role` text NOT NULL,
	`content` text,
	`content_parts` text,
	`tool_calls` text,
	`tool_call_id` text,
	`name` text,
	`timestamp` integer NOT NULL,
	`token_count` integer,
	`search_text` text,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "messages_role_check" CHECK(`role` IN ('system', 'user', 'assistant', 'tool'))
);
--> statement-breakpoint
INSERT INTO `__new_messages`("id", "session_id", "role", "content", "content_parts", "tool_calls", "tool_call_id", "name", "timestamp", "token_count", "search_text") SELECT "id", "session_id", "role", "content", "content_parts", "tool_calls", "tool_call_id", "name", "timestamp", "token_count", "search_text" FROM `messages`;
--> statement-breakpoint
DROP TABLE `messages`;
--> statement-breakpoint
ALTER TABLE `__new_messages` RENAME TO `messages`;
--> statement-breakpoint
CREATE INDEX `messages_session_idx` ON `messages` (`session_id`);
--> statement-breakpoint
CREATE TABLE `__new_episodes` (
	`id` integer PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`summary` text NOT NULL,
	`content` text,
	`importance` integer DEFAULT 5 NOT NULL,
	`token_count` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`last_hit_at` integer,
	`hit_count` integer DEFAULT 0 NOT NULL,
	`first_message_id` integer,
	`last_message_id` integer,
	`search_text` text,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "episodes_importance_check" CHECK(`importance` BETWEEN 0 AND 10)
);
--> statement-breakpoint
INSERT INTO `__new_episodes`("id", "session_id", "summary", "content", "importance", "token_count", "created_at", "last_hit_at", "hit_count", "first_message_id", "last_message_id", "search_text") SELECT "id", "session_id", "summary", "content", "importance", "token_count", "created_at", "last_hit_at", "hit_count", "first_message_id", "last_message_id", "search_text" FROM `episodes`;
--> statement-breakpoint
DROP TABLE `episodes`;
--> statement-breakpoint
ALTER TABLE `__new_episodes` RENAME TO `episodes`;
--> statement-breakpoint
CREATE INDEX `episodes_session_idx` ON `episodes` (`session_id`);
--> statement-breakpoint
CREATE INDEX `episodes_eviction_idx` ON `episodes` (`importance`,`last_hit_at`);
--> statement-breakpoint
CREATE TABLE `__new_model_calls` (
	`id` integer PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`model` text NOT NULL,
	`purpose` text NOT NULL,
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`cache_read_tokens` integer DEFAULT 0 NOT NULL,
	`cache_write_tokens` integer DEFAULT 0 NOT NULL,
	`cost_usd` real DEFAULT 0 NOT NULL,
	`latency_ms` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_model_calls`("id", "session_id", "model", "purpose", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd", "latency_ms", "created_at") SELECT "id", "session_id", "model", "purpose", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd", "latency_ms", "created_at" FROM `model_calls`;
--> statement-breakpoint
DROP TABLE `model_calls`;
--> statement-breakpoint
ALTER TABLE `__new_model_calls` RENAME TO `model_calls`;
--> statement-breakpoint
CREATE INDEX `model_calls_session_idx` ON `model_calls` (`session_id`,`purpose`);
--> statement-breakpoint
CREATE VIEW `messages_fts_source` AS SELECT `id`, coalesce(`search_text`, `content`, '') AS `body` FROM `messages`;
--> statement-breakpoint
CREATE VIEW `episodes_fts_source` AS SELECT `id`, coalesce(`search_text`, `summary`) AS `body` FROM `episodes`;
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
CREATE TRIGGER `messages_count_insert` AFTER INSERT ON `messages` BEGIN
  UPDATE `sessions` SET `message_count` = `message_count` + 1,
    `tool_call_count` = `tool_call_count` + coalesce(json_array_length(new.`tool_calls`), 0)
  WHERE `id` = new.`session_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `messages_count_delete` AFTER DELETE ON `messages` BEGIN
  UPDATE `sessions` SET `message_count` = `message_count` - 1,
    `tool_call_count` = `tool_call_count` - coalesce(json_array_length(old.`tool_calls`), 0)
  WHERE `id` = old.`session_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `messages_count_update` AFTER UPDATE OF `session_id`, `tool_calls` ON `messages` BEGIN
  UPDATE `sessions` SET `message_count` = `message_count` - 1,
    `tool_call_count` = `tool_call_count` - coalesce(json_array_length(old.`tool_calls`), 0)
  WHERE `id` = old.`session_id`;
  UPDATE `sessions` SET `message_count` = `message_count` + 1,
    `tool_call_count` = `tool_call_count` + coalesce(json_array_length(new.`tool_calls`), 0)
  WHERE `id` = new.`session_id`;
END;
