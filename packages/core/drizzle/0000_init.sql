CREATE TABLE `episodes` (
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
	CONSTRAINT "episodes_importance_check" CHECK("episodes"."importance" BETWEEN 0 AND 10)
);
--> statement-breakpoint
CREATE INDEX `episodes_session_idx` ON `episodes` (`session_id`);--> statement-breakpoint
CREATE INDEX `episodes_eviction_idx` ON `episodes` (`importance`,`last_hit_at`);--> statement-breakpoint
CREATE TABLE `messages` (
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
	CONSTRAINT "messages_role_check" CHECK("messages"."role" IN ('system', 'user', 'assistant', 'tool'))
);
--> statement-breakpoint
CREATE INDEX `messages_session_idx` ON `messages` (`session_id`);--> statement-breakpoint
CREATE TABLE `model_calls` (
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
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `model_calls_session_idx` ON `model_calls` (`session_id`,`purpose`);--> statement-breakpoint
CREATE TABLE `sessions` (
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
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`cost_usd` real DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sessions_source_started_at_idx` ON `sessions` (`source`,`started_at`);--> statement-breakpoint
CREATE INDEX `sessions_user_started_at_idx` ON `sessions` (`user_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `sessions_parent_idx` ON `sessions` (`parent_session_id`);