import type { Checkpoint, CheckpointMetadata, PendingWrite } from '@langchain/langgraph-checkpoint'

/** A checkpoint id that sorts by step, as LangGraph's uuid6 ids do by time. */
export const stepId = (i: number) => `1ef00000-0000-6000-8000-${String(i).padStart(12, '0')}`

/** Step `i` of the thread `shared` that several processes write at once: the same in every process. */
export function sharedStep(i: number) {
  const checkpoint: Checkpoint = {
    v: 4,
    id: stepId(i),
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    channel_values: { count: i, log: Array.from({ length: i + 1 }, (_, j) => `step ${j}`) },
    channel_versions: { count: i + 1, log: i + 1 },
    versions_seen: { agent: { count: i } },
  }
  const metadata: CheckpointMetadata = { source: 'loop', step: i, parents: {} }
  const writes: [string, PendingWrite[]][] = [
    [`task-a-${i}`, [['count', i + 1]]],
    [
      `task-b-${i}`,
      [
        ['log', `step ${i + 1}`],
        ['note', { by: 'b', i }],
      ],
    ],
  ]
  return {
    parentConfig: {
      configurable: {
        thread_id: 'shared',
        checkpoint_ns: '',
        ...(i > 0 ? { checkpoint_id: stepId(i - 1) } : {}),
      },
    },
    checkpoint,
    metadata,
    newVersions: { count: i + 1, log: i + 1 },
    writes,
  }
}
