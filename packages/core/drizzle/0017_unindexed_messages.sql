-- A message is indexed in batches, not in the transaction that appends it. FTS5 writes each transaction's
-- terms as a new segment, and on agent traffic that segment, not the row, was most of an append's cost
-- (docs/benchmarks.md: W1). Now every new row is listed in `messages_unindexed` by the insert trigger, in
-- the append's own transaction (so a crash loses nothing: the list is as durable as the row), and the
-- store indexes the listed rows in one transaction once a connection has appended a batch of them, before
-- any search, before a check of the index and at close (dialects/sqlite/unindexed.ts). A listed row has no
-- entry in the index; an indexed row is not listed.
CREATE TABLE `messages_unindexed` (`id` integer PRIMARY KEY NOT NULL);--> statement-breakpoint
DROP TRIGGER IF EXISTS `messages_fts_insert`;--> statement-breakpoint
CREATE TRIGGER `messages_fts_insert` AFTER INSERT ON `messages` BEGIN
  INSERT OR IGNORE INTO `messages_unindexed`(`id`) VALUES (new.`id`);
END;--> statement-breakpoint
-- Deleting the entry of a listed row (which has none) changes nothing.
DROP TRIGGER IF EXISTS `messages_fts_delete`;--> statement-breakpoint
CREATE TRIGGER `messages_fts_delete` AFTER DELETE ON `messages` BEGIN
  DELETE FROM `messages_fts` WHERE rowid = old.`id`;
  DELETE FROM `messages_unindexed` WHERE `id` = old.`id`;
END;--> statement-breakpoint
-- As in 0015, a new index text or a new content reindexes the row, now, listed or not.
DROP TRIGGER IF EXISTS `messages_fts_update`;--> statement-breakpoint
CREATE TRIGGER `messages_fts_update` AFTER UPDATE OF `content`, `search_text` ON `messages`
WHEN new.`search_text` IS NOT '' OR new.`content` IS NOT old.`content` BEGIN
  DELETE FROM `messages_fts` WHERE rowid = old.`id`;
  DELETE FROM `messages_unindexed` WHERE `id` = old.`id`;
  INSERT INTO `messages_fts`(rowid, `body`) VALUES (new.`id`, coalesce(nullif(new.`search_text`, ''), new.`content`, ''));
END;
