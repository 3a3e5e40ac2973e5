import type { UserConfig } from 'tsdown'

/** What every library package's build shares: ESM for Node 20 with types and source maps, in dist/. */
export const libraryBuild = {
  format: 'esm',
  platform: 'node',
  target: 'node20',
  dts: true,
  sourcemap: true,
  clean: true,
} satisfies UserConfig
