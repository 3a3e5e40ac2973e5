-- English words stemmed as SQLite's FTS5 porter tokenizer stems them: the configuration `simple` with its
-- word tokens sent through the Snowball English stemmer, which has no stop-word list here (FTS5 has none),
-- leaves words of two letters or fewer as they are, and leaves CJK words (split in JavaScript) whole.
CREATE TEXT SEARCH DICTIONARY engram_stem (TEMPLATE = snowball, Language = english);--> statement-breakpoint
CREATE TEXT SEARCH CONFIGURATION engram_search (COPY = simple);--> statement-breakpoint
ALTER TEXT SEARCH CONFIGURATION engram_search
  ALTER MAPPING FOR asciiword, word, numword, asciihword, hword, numhword, hword_asciipart, hword_part, hword_numpart
  WITH engram_stem;--> statement-breakpoint
-- A generated column's expression cannot be altered before PostgreSQL 17: the vectors are made again by
-- dropping and adding the column (which drops its GIN index, made again below).
ALTER TABLE "episodes" DROP COLUMN "search_vector";--> statement-breakpoint
ALTER TABLE "episodes" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (to_tsvector('engram_search'::regconfig, translate(left(coalesce(search_text, summary, ''), 262144), chr(8203) || '/', '  '))) STORED;--> statement-breakpoint
ALTER TABLE "messages" DROP COLUMN "search_vector";--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (to_tsvector('engram_search'::regconfig, translate(left(coalesce(search_text, content, ''), 262144), chr(8203) || '/', '  '))) STORED;--> statement-breakpoint
CREATE INDEX "episodes_search_idx" ON "episodes" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "messages_search_idx" ON "messages" USING gin ("search_vector");
