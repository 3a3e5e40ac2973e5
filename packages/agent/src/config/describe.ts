import { withoutUndefined } from './load.ts'
import { maskedConfig } from './mask.ts'
import type { ConfigFile } from './schema.ts'
import type { EngramConfig, ModelConfig } from './types.ts'

function modelKeys(model: ModelConfig): NonNullable<NonNullable<ConfigFile['models']>['main']> {
  const { price } = model
  return withoutUndefined({
    model_id: model.modelId,
    max_tokens: model.maxTokens,
    context_window: model.contextWindow,
    price:
      price && withoutUndefined({ input: price.input, output: price.output, cache_read: price.cacheRead }),
  })
}

/**
 * The effective configuration under the config file's own key names (`[hermes.storage] db_path`,
 * `[context_compressor] trigger_ratio`, `models.main.model_id`, …), secrets masked as by
 * {@link maskedConfig}: what `engram doctor` prints, so a user can find each value in the file. A setting
 * with two keys is shown once, under the key listed first in the configuration reference
 * (`hermes.storage.db_path`, not `memory.sqlite_path`; `models.compressor.model_id`, not
 * `context_compressor.compress_model`). Without secrets, the result loads back into the same config.
 */
export function describeConfig(config: EngramConfig): ConfigFile {
  const { storage, compressor, memoryFiles, api, models } = maskedConfig(config)
  return {
    hermes: {
      storage: withoutUndefined({
        db_path: storage.url,
        journal_mode: storage.journalMode,
        synchronous: storage.synchronous,
        busy_timeout: storage.busyTimeout,
        fts_enabled: true as const,
        driver: storage.driver,
        auth_token: storage.authToken,
        sync_url: storage.syncUrl,
        sync_interval_seconds: storage.syncIntervalSeconds,
      }),
    },
    context_compressor: {
      trigger_ratio: compressor.triggerRatio,
      head_protect_messages: compressor.headProtectMessages,
      tail_protect_tokens: compressor.tailProtectTokens,
      tool_output_char_limit: compressor.toolOutputCharLimit,
      repair_tool_pairs: compressor.repairToolPairs,
      summary_max_tokens: compressor.summaryMaxTokens,
      reply_budget_tokens: compressor.replyBudgetTokens,
    },
    memory_files: {
      memory_md_char_limit: memoryFiles.memoryCharLimit,
      user_md_char_limit: memoryFiles.userCharLimit,
      compact_trigger_ratio: memoryFiles.compactTriggerRatio,
    },
    nudge: { interval_tasks: config.nudge.intervalTasks },
    api: withoutUndefined({
      provider: api.provider,
      base_url: api.baseUrl,
      api_key: api.apiKey,
      timeout_seconds: api.timeoutSeconds,
    }),
    models: { main: modelKeys(models.main), compressor: modelKeys(models.compressor) },
    memory: { memory_md_path: memoryFiles.memoryPath, user_md_path: memoryFiles.userPath },
  }
}
