-- The model settings a session ran with (its context window above all), as JSON text like SQLite's (0013);
-- null for the sessions written before.
ALTER TABLE "sessions" ADD COLUMN IF NOT EXISTS "model_config" text;
