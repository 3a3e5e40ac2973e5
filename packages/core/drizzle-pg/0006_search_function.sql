-- A keyword search's two halves (episodes, then messages) as one function: PL/pgSQL keeps its queries'
-- plans for the connection, and SET plan_cache_mode keeps them the generic ones, so a search is planned
-- once per connection instead of on every call (planning was most of a search's time at a few thousand
-- rows). The plan is the same for every term: the GIN index finds the rows, ts_rank_cd scores them, and
-- only the `take` best of each half are read again for their first `chars` characters. Both halves are
-- one query (one executor run; a null episode_query skips the episodes). A user's search has the user in
-- the index condition (the GIN index covers (user_id, search_vector) where btree_gin is available), hence
-- a query per case. Filters other than the user (session, source, time, role, lineage) and the time
-- orders stay with the store's planned statements, whose best plans depend on their values.
CREATE FUNCTION engram_keyword_hits(episode_query tsquery, message_query tsquery, owner text, take integer, chars integer)
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
        FROM messages t WHERE t.search_vector @@ message_query
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
        FROM messages t WHERE t.search_vector @@ message_query AND t.user_id = owner
        ORDER BY score DESC, t.id DESC LIMIT take) h
      JOIN messages x ON x.id = h.id JOIN sessions s ON s.id = h.session_id
      ORDER BY h.score DESC, h.id DESC);
  END IF;
END $$;
