-- sessions.message_count and tool_call_count are kept by a trigger, as on SQLite, so they stay right
-- whoever writes the messages table. The UPDATE takes the session's row lock: concurrent appends to one
-- session are serialised on it at READ COMMITTED, and each adds to the committed count.
CREATE FUNCTION engram_count_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE sessions SET message_count = message_count - 1,
      tool_call_count = tool_call_count - coalesce(json_array_length(OLD.tool_calls::json), 0)
    WHERE id = OLD.session_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE sessions SET message_count = message_count + 1,
      tool_call_count = tool_call_count + coalesce(json_array_length(NEW.tool_calls::json), 0)
    WHERE id = NEW.session_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER messages_count_insert AFTER INSERT ON messages FOR EACH ROW EXECUTE FUNCTION engram_count_messages();
--> statement-breakpoint
CREATE TRIGGER messages_count_delete AFTER DELETE ON messages FOR EACH ROW EXECUTE FUNCTION engram_count_messages();
--> statement-breakpoint
CREATE TRIGGER messages_count_update AFTER UPDATE OF session_id, tool_calls ON messages FOR EACH ROW EXECUTE FUNCTION engram_count_messages();
