// The official @modelcontextprotocol/server-memory under the load of the Engram many-clients test: 6 server
// processes on one memory file, each client writing 12 entities, then one read of the whole graph.
//   npm install --prefix /tmp/smem @modelcontextprotocol/server-memory
//   node packages/mcp/bench/compare-server-memory.mjs /tmp/smem/node_modules/@modelcontextprotocol/server-memory/dist/index.js
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const serverPath = process.argv[2]
if (!serverPath) throw new Error('Give the path of server-memory/dist/index.js (see the comment at the top).')
const file = join(mkdtempSync(join(tmpdir(), 'server-memory-')), 'memory.jsonl')
const servers = await Promise.all(
  Array.from({ length: 6 }, async () => {
    const t = new StdioClientTransport({
      command: process.execPath,
      args: [serverPath],
      env: { PATH: process.env.PATH, MEMORY_FILE_PATH: file },
      stderr: 'ignore',
    })
    const c = new Client({ name: 'cmp', version: '1' })
    await c.connect(t)
    return c
  }),
)
let acked = 0
await Promise.all(
  servers.map(async (c, i) => {
    for (let r = 0; r < 12; r++) {
      const res = await c.callTool({
        name: 'create_entities',
        arguments: {
          entities: [
            {
              name: `client${i}-fact${r}`,
              entityType: 'fact',
              observations: [`Client ${i} learned fact number ${r}: the nightly queue drains by six.`],
            },
          ],
        },
      })
      if (!res.isError) acked++
    }
  }),
)
const graph = await servers[0].callTool({ name: 'read_graph', arguments: {} })
const entities = JSON.parse(graph.content[0].text).entities.length
console.log(
  JSON.stringify({
    acked,
    entitiesPresent: entities,
    lost: acked - entities,
    readGraphBytes: JSON.stringify(graph).length,
  }),
)
// result size: one read after 500 entities
for (let b = 0; b < 10; b++)
  await servers[0].callTool({
    name: 'create_entities',
    arguments: {
      entities: Array.from({ length: 50 }, (_, k) => ({
        name: `bulk${b}-${k}`,
        entityType: 'note',
        observations: [`bulk note ${b}-${k} about the deploy pipeline and its staging checks`],
      })),
    },
  })
const big = await servers[0].callTool({ name: 'read_graph', arguments: {} })
const search = await servers[0].callTool({ name: 'search_nodes', arguments: { query: 'deploy' } })
console.log(
  JSON.stringify({
    entities: JSON.parse(big.content[0].text).entities.length,
    readGraphBytes: JSON.stringify(big).length,
    searchBytes: JSON.stringify(search).length,
  }),
)
await Promise.all(servers.map((c) => c.close()))
