-- The unique index on (session_id, ref) holds only rows with a ref. Plain appends leave `ref` null (only
-- appendMessagesOnce sets it), and NULL refs never conflict, so the full index repeated every message's
-- session id for nothing: about 54 bytes a message on the reference bench corpus (docs/benchmarks.md).
-- `ref = ?` implies `ref IS NOT NULL`, so lookups by ref still use it; ON CONFLICT DO NOTHING still sees it.
DROP INDEX IF EXISTS `messages_session_ref_idx`;--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS `messages_session_ref_idx` ON `messages` (`session_id`,`ref`) WHERE "messages"."ref" IS NOT NULL;
