ALTER TABLE "messages" ADD COLUMN "ref" text;--> statement-breakpoint
ALTER TABLE "model_calls" ADD COLUMN "calls" bigint DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "messages_session_ref_idx" ON "messages" USING btree ("session_id","ref");