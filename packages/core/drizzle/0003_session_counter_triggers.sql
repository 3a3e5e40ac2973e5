-- sessions.message_count and tool_call_count are kept by triggers, so they stay right whoever writes the
-- messages table (another process, another tool) and listing sessions never has to count messages.
CREATE TRIGGER `messages_count_insert` AFTER INSERT ON `messages` BEGIN
  UPDATE `sessions` SET `message_count` = `message_count` + 1,
    `tool_call_count` = `tool_call_count` + coalesce(json_array_length(new.`tool_calls`), 0)
  WHERE `id` = new.`session_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `messages_count_delete` AFTER DELETE ON `messages` BEGIN
  UPDATE `sessions` SET `message_count` = `message_count` - 1,
    `tool_call_count` = `tool_call_count` - coalesce(json_array_length(old.`tool_calls`), 0)
  WHERE `id` = old.`session_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `messages_count_update` AFTER UPDATE OF `session_id`, `tool_calls` ON `messages` BEGIN
  UPDATE `sessions` SET `message_count` = `message_count` - 1,
    `tool_call_count` = `tool_call_count` - coalesce(json_array_length(old.`tool_calls`), 0)
  WHERE `id` = old.`session_id`;
  UPDATE `sessions` SET `message_count` = `message_count` + 1,
    `tool_call_count` = `tool_call_count` + coalesce(json_array_length(new.`tool_calls`), 0)
  WHERE `id` = new.`session_id`;
END;
--> statement-breakpoint
-- Sessions written before this migration get their counts now.
UPDATE `sessions` SET
  `message_count` = (SELECT count(*) FROM `messages` m WHERE m.`session_id` = `sessions`.`id`),
  `tool_call_count` = (SELECT coalesce(sum(json_array_length(m.`tool_calls`)), 0) FROM `messages` m
    WHERE m.`session_id` = `sessions`.`id` AND m.`tool_calls` IS NOT NULL);
