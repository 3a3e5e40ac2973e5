-- The agent's own retrieval traffic (its calls of session_search and memory, their results, the replies that
-- only report them): 1 in `retrieval`, left out of search unless the search asks for it (store/search-sql.ts).
-- New messages are marked by their writer (MessageInput.retrieval); the rows stored before are marked here,
-- by the rules of the SQLite migration 0009_retrieval_traffic.
ALTER TABLE "messages" ADD COLUMN "retrieval" smallint;--> statement-breakpoint
-- an assistant turn whose every tool call is session_search or memory (a row whose JSON PostgreSQL refuses,
-- such as a \u0000 escape, is left as it is)
DO $$
DECLARE r record; names text[];
BEGIN
  FOR r IN SELECT id, tool_calls FROM messages WHERE role = 'assistant' AND tool_calls IS NOT NULL LOOP
    BEGIN
      SELECT array_agg(coalesce(c->'function'->>'name', '')) INTO names FROM json_array_elements(r.tool_calls::json) c;
      IF names IS NOT NULL AND names <@ ARRAY['session_search', 'memory'] THEN
        UPDATE messages SET retrieval = 1 WHERE id = r.id;
      END IF;
    EXCEPTION WHEN others THEN NULL;
    END;
  END LOOP;
END $$;--> statement-breakpoint
-- the results of those calls (a result names its call's id, which the call's JSON holds as a string)
UPDATE messages t SET retrieval = 1
WHERE t.role = 'tool' AND t.tool_call_id IS NOT NULL AND EXISTS (
  SELECT 1 FROM messages a
  WHERE a.session_id = t.session_id AND a.retrieval = 1 AND a.id < t.id
    AND strpos(a.tool_calls, '"' || t.tool_call_id || '"') > 0);--> statement-breakpoint
-- a short reply right after such a result (at most 400 characters: a report of the search, not new work)
UPDATE messages t SET retrieval = 1
WHERE t.role = 'assistant' AND t.tool_calls IS NULL AND length(coalesce(t.content, '')) <= 400
  AND (SELECT p.retrieval FROM messages p WHERE p.session_id = t.session_id AND p.id < t.id
    ORDER BY p.id DESC LIMIT 1) = 1;--> statement-breakpoint
-- engram_keyword_hits (0006) leaves the retrieval traffic out; a search that includes it runs the store's
-- planned statements instead.
CREATE OR REPLACE FUNCTION engram_keyword_hits(episode_query tsquery, message_query tsquery, owner text, take integer, chars integer)
RETURNS TABLE (kind text, session_id text, item_id bigint, role text, "timestamp" bigint, source text, score real, excerpt text)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
  IF owner IS NULL THEN
    RETURN QUERY
    (SELECT 'episode'::text, h.session_id, h.id, 'episode'::text, h.created_at, s.source, h.score,
        substr(coalesce(x.search_text, x.summary, ''), 1, chars)
      FROM (SELECT t.id, t.session_id, t.created_at, ts_rank_cd(t.search_vector, episode_query) AS score
        FROM episodes t WHERE episode_query IS NOT NULL AND t.search_vector @@ episode_query
        ORDER BY score DESC, t.id DESC LIMIT take) h
      JOIN episodes x ON x.id = h.id JOIN sessions s ON s.id = h.session_id
      ORDER BY h.score DESC, h.id DESC)
    UNION ALL
    (SELECT 'message'::text, h.session_id, h.id, h.role, h."timestamp", s.source, h.score,
        substr(coalesce(x.search_text, x.content, ''), 1, chars)
      FROM (SELECT t.id, t.session_id, t.role, t."timestamp", ts_rank_cd(t.search_vector, message_query) AS score
        FROM messages t WHERE t.search_vector @@ message_query AND t.retrieval IS NULL
        ORDER BY score DESC, t.id DESC LIMIT take) h
      JOIN messages x ON x.id = h.id JOIN sessions s ON s.id = h.session_id
      ORDER BY h.score DESC, h.id DESC);
  ELSE
    RETURN QUERY
    (SELECT 'episode'::text, h.session_id, h.id, 'episode'::text, h.created_at, s.source, h.score,
        substr(coalesce(x.search_text, x.summary, ''), 1, chars)
      FROM (SELECT t.id, t.session_id, t.created_at, ts_rank_cd(t.search_vector, episode_query) AS score
        FROM episodes t WHERE episode_query IS NOT NULL AND t.search_vector @@ episode_query AND t.user_id = owner
        ORDER BY score DESC, t.id DESC LIMIT take) h
      JOIN episodes x ON x.id = h.id JOIN sessions s ON s.id = h.session_id
      ORDER BY h.score DESC, h.id DESC)
    UNION ALL
    (SELECT 'message'::text, h.session_id, h.id, h.role, h."timestamp", s.source, h.score,
        substr(coalesce(x.search_text, x.content, ''), 1, chars)
      FROM (SELECT t.id, t.session_id, t.role, t."timestamp", ts_rank_cd(t.search_vector, message_query) AS score
        FROM messages t WHERE t.search_vector @@ message_query AND t.user_id = owner AND t.retrieval IS NULL
        ORDER BY score DESC, t.id DESC LIMIT take) h
      JOIN messages x ON x.id = h.id JOIN sessions s ON s.id = h.session_id
      ORDER BY h.score DESC, h.id DESC);
  END IF;
END $$;
