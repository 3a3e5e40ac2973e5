import { checkModel, type EngramConfig, type ModelCheck } from '@engram/agent'

/**
 * `engram doctor`'s model check: the main model asked for a few tokens through the same provider code as
 * chat (proxy, response-shape checks and error messages included). The key is never printed.
 */
export function probeProvider(
  config: Pick<EngramConfig, 'api' | 'models'>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ModelCheck> {
  return checkModel(config.api, config.models.main, env)
}
