-- IF NOT EXISTS throughout: the store contract re-runs the migrations from 0004 on over an unmarked Engram database.
CREATE TABLE IF NOT EXISTS `access_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`secret_hash` text NOT NULL,
	`user_id` text NOT NULL,
	`project` text,
	`read_only` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS `access_tokens_secret_hash_unique` ON `access_tokens` (`secret_hash`);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `access_tokens_user_idx` ON `access_tokens` (`user_id`);