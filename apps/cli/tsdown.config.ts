import { defineConfig } from 'tsdown'
import { libraryBuild } from '../../tsdown.base.ts'

// One executable module (bin/engram.js runs dist/main.mjs when it exists); no declarations, nothing imports it.
export default defineConfig({ ...libraryBuild, entry: { main: 'src/main.ts' }, dts: false })
