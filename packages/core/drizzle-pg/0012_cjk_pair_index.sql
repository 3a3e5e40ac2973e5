-- The search index reads a run of CJK characters as its overlapping pairs and its last character (数据迁移
-- → 数据 据迁 迁移 移: search/cjk.ts toIndexText) instead of one lexeme per character, so a query for a word
-- reads the entries of its pairs instead of the positions of common single characters. SQL cannot make the
-- new search texts; the store does, in JS, right after the migrations, in one transaction
-- (store/maintenance.ts finishPendingTasks): the task waits in this table until that transaction commits.
-- A database without search texts (empty, or only plain text) has nothing to do.
CREATE TABLE IF NOT EXISTS engram_pending_tasks (task text PRIMARY KEY NOT NULL);
--> statement-breakpoint
INSERT INTO engram_pending_tasks (task) SELECT 'cjk-pair-index'
WHERE EXISTS (SELECT 1 FROM messages WHERE search_text IS NOT NULL)
  OR EXISTS (SELECT 1 FROM episodes WHERE search_text IS NOT NULL)
  OR EXISTS (SELECT 1 FROM graph_items WHERE strpos(search_text, chr(8203)) > 0)
ON CONFLICT (task) DO NOTHING;
