import { defineConfig } from 'tsdown'
import { libraryBuild } from '../../tsdown.base.ts'

export default defineConfig({ ...libraryBuild, entry: { index: 'src/index.ts', config: 'src/config.ts' } })
