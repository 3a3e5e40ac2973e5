-- The agent's own retrieval traffic (its calls of session_search and memory, their results, the replies that
-- only report them): 1 in `retrieval`, left out of search unless the search asks for it (store/search-sql.ts).
-- New messages are marked by their writer (MessageInput.retrieval); the rows stored before are marked here.
ALTER TABLE `messages` ADD `retrieval` integer;--> statement-breakpoint
-- an assistant turn whose every tool call is session_search or memory (CASE, not AND: SQLite may evaluate
-- either side of an AND first, and a JSON function fails on text that is not JSON)
UPDATE `messages` SET `retrieval` = 1
WHERE `role` = 'assistant' AND `tool_calls` IS NOT NULL
  AND CASE WHEN json_valid(`tool_calls`) AND json_type(`tool_calls`) = 'array' THEN
    json_array_length(`tool_calls`) > 0 AND NOT EXISTS (
      SELECT 1 FROM json_each(`tool_calls`) c
      WHERE CASE WHEN c.type = 'object' THEN coalesce(json_extract(c.value, '$.function.name'), '') ELSE '' END
        NOT IN ('session_search', 'memory'))
  ELSE 0 END;--> statement-breakpoint
-- the results of those calls (a result names its call's id, which the call's JSON holds as a string)
UPDATE `messages` SET `retrieval` = 1
WHERE `role` = 'tool' AND `tool_call_id` IS NOT NULL AND EXISTS (
  SELECT 1 FROM `messages` a
  WHERE a.`session_id` = `messages`.`session_id` AND a.`retrieval` = 1 AND a.`id` < `messages`.`id`
    AND instr(a.`tool_calls`, '"' || `messages`.`tool_call_id` || '"') > 0);--> statement-breakpoint
-- a short reply right after such a result (at most 400 characters: a report of the search, not new work)
UPDATE `messages` SET `retrieval` = 1
WHERE `role` = 'assistant' AND `tool_calls` IS NULL AND length(coalesce(`content`, '')) <= 400
  AND (SELECT p.`retrieval` FROM `messages` p
    WHERE p.`session_id` = `messages`.`session_id` AND p.`id` < `messages`.`id`
    ORDER BY p.`id` DESC LIMIT 1) = 1;
