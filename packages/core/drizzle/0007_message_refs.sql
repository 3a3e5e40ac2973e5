-- A writer's own id for a message (an MCP client's message id), unique within its session, so a retried
-- write finds the message it stored before instead of storing it twice. NULL (most messages) never collides.
ALTER TABLE `messages` ADD `ref` text;--> statement-breakpoint
CREATE UNIQUE INDEX `messages_session_ref_idx` ON `messages` (`session_id`,`ref`);