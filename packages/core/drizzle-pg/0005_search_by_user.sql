-- A user-scoped search reads only that user's rows from the search index: messages and episodes carry
-- their session's user_id (copied by trigger, so every writer agrees), and the GIN index covers
-- (user_id, search_vector) through btree_gin, which answers an unscoped search as well.
ALTER TABLE "episodes" ADD COLUMN "user_id" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "user_id" text;--> statement-breakpoint
UPDATE "messages" m SET "user_id" = s."user_id" FROM "sessions" s WHERE s."id" = m."session_id";--> statement-breakpoint
UPDATE "episodes" e SET "user_id" = s."user_id" FROM "sessions" s WHERE s."id" = e."session_id";--> statement-breakpoint
CREATE FUNCTION engram_copy_user_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.user_id := (SELECT user_id FROM sessions WHERE id = NEW.session_id);
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER messages_user_id BEFORE INSERT OR UPDATE OF session_id, user_id ON messages FOR EACH ROW EXECUTE FUNCTION engram_copy_user_id();
--> statement-breakpoint
CREATE TRIGGER episodes_user_id BEFORE INSERT OR UPDATE OF session_id, user_id ON episodes FOR EACH ROW EXECUTE FUNCTION engram_copy_user_id();
--> statement-breakpoint
CREATE FUNCTION engram_move_user_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE messages SET user_id = NEW.user_id WHERE session_id = NEW.id;
  UPDATE episodes SET user_id = NEW.user_id WHERE session_id = NEW.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER sessions_user_id AFTER UPDATE OF user_id ON sessions FOR EACH ROW WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id) EXECUTE FUNCTION engram_move_user_id();
--> statement-breakpoint
-- btree_gin lives in a schema of its own, so dropping one store's schema (several apps in one database)
-- cannot take the extension, and every other store's index, with it. Where it cannot be had (PGlite
-- without the extension loaded, a server without contrib, a role that may not create it) the index stays
-- on search_vector alone: the search is the same, the user's filter applies after the index.
DO $$
BEGIN
  BEGIN
    CREATE SCHEMA IF NOT EXISTS engram_extensions;
    CREATE EXTENSION IF NOT EXISTS btree_gin SCHEMA engram_extensions;
  EXCEPTION WHEN feature_not_supported OR undefined_file OR insufficient_privilege THEN
    RAISE NOTICE 'btree_gin is not available (%): the search index stays on search_vector alone', SQLERRM;
  END;
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'btree_gin') THEN
    DROP INDEX episodes_search_idx;
    DROP INDEX messages_search_idx;
    CREATE INDEX episodes_search_idx ON episodes USING gin (user_id, search_vector);
    CREATE INDEX messages_search_idx ON messages USING gin (user_id, search_vector);
  END IF;
END $$;
