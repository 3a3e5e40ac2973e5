-- The model settings a session ran with (its context window above all), as JSON text; null for the sessions
-- written before. SQLite has no ADD COLUMN IF NOT EXISTS: the migrator's history runs this once per file.
ALTER TABLE `sessions` ADD `model_config` text;
