-- The search index reads a run of CJK characters as its overlapping pairs and its last character (数据迁移
-- → 数据 据迁 迁移 移: search/cjk.ts toIndexText) instead of one token per character, so a query for a word
-- reads the short position lists of its pairs instead of intersecting those of common single characters.
-- SQL cannot make the new index texts; the store does, in JS, right after the migrations, in one transaction
-- (store/maintenance.ts finishPendingTasks): the task waits in this table until that transaction commits,
-- so an open that fails before then leaves it for the next one. A database without index texts (empty, or
-- only plain text) has nothing to do.
CREATE TABLE IF NOT EXISTS `engram_pending_tasks` (`task` text PRIMARY KEY NOT NULL);--> statement-breakpoint
INSERT OR IGNORE INTO `engram_pending_tasks` (`task`) SELECT 'cjk-pair-index'
WHERE EXISTS (SELECT 1 FROM `messages` WHERE `search_text` IS NOT NULL)
  OR EXISTS (SELECT 1 FROM `episodes` WHERE `search_text` IS NOT NULL)
  OR EXISTS (SELECT 1 FROM `graph_items` WHERE instr(`search_text`, char(8203)) > 0);
--> statement-breakpoint
-- The graph items' index had two AFTER UPDATE triggers, and SQLite runs a table's triggers newest first: the
-- new text was indexed, then the old one deleted under the same rowid, which took the row's entry in the
-- index's docsize table with it, so an item written again (store.graph.items.put of an existing key) was
-- never found again. One trigger now deletes, then inserts, and the index is made again from the table.
DROP TRIGGER IF EXISTS `graph_items_fts_update_old`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `graph_items_fts_update_new`;--> statement-breakpoint
CREATE TRIGGER `graph_items_fts_update` AFTER UPDATE OF `search_text` ON `graph_items` BEGIN
  INSERT INTO `graph_items_fts`(`graph_items_fts`, rowid, `search_text`) SELECT 'delete', old.`id`, old.`search_text` WHERE old.`search_text` IS NOT NULL;
  INSERT INTO `graph_items_fts`(rowid, `search_text`) SELECT new.`id`, new.`search_text` WHERE new.`search_text` IS NOT NULL;
END;--> statement-breakpoint
INSERT INTO `graph_items_fts`(`graph_items_fts`) VALUES ('rebuild');
