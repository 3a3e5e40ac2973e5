import type { MessageInput, ToolCall } from '@engram/core'

/**
 * The i-th message a crash-test writer appends in a given round: a deterministic mix of English, Chinese
 * and tool traffic, so the parent can tell exactly what each stored row must hold.
 */
export function crashMessage(round: number, i: number): MessageInput {
  const tag = `r${round}n${i}`
  switch (i % 4) {
    case 0:
      return { role: 'user', content: `Please summarise the deployment log ${tag}, the build failed twice.` }
    case 1:
      return {
        role: 'assistant',
        content: `好的，我来总结部署日志 ${tag}：构建失败了两次，原因是中文路径和磁盘空间不足。`,
      }
    case 2: {
      const call: ToolCall = {
        id: `call_${tag}`,
        type: 'function',
        function: { name: 'read_file', arguments: JSON.stringify({ path: `logs/${tag}.txt`, 行数: i }) },
      }
      return { role: 'assistant', content: null, tool_calls: [call] }
    }
    default:
      return {
        role: 'tool',
        tool_call_id: `call_r${round}n${i - 1}`,
        name: 'read_file',
        content: `error: disk full (磁盘已满) while reading ${tag}`,
      }
  }
}
