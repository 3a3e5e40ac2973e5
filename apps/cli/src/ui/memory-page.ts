import { type MemoryFiles, MemoryRefusal, type MemoryTarget } from '@engram/agent'
import { html } from 'hono/html'
import { type Html, meter, page } from './html.ts'

const FILES: { target: MemoryTarget; label: string }[] = [
  { target: 'memory', label: 'MEMORY.md — the agent’s notes' },
  { target: 'user', label: 'USER.md — the user profile' },
]

/** The edit forms of one file, when editing is on. */
function forms(target: MemoryTarget): Html {
  return html`<details><summary>Change ${target === 'memory' ? 'MEMORY.md' : 'USER.md'}</summary>
    <form method="post" action="memory" class="filters"><input type="hidden" name="target" value="${target}"><input type="hidden" name="action" value="add">
      <label>new entry <textarea name="content" rows="2" cols="60" required></textarea></label><button>Add</button></form>
    <form method="post" action="memory" class="filters"><input type="hidden" name="target" value="${target}"><input type="hidden" name="action" value="replace">
      <label>a unique part of the old entry <input name="old_text" size="30" required></label><label>the new entry <input name="content" size="40" required></label><button>Replace</button></form>
    <form method="post" action="memory" class="filters"><input type="hidden" name="target" value="${target}"><input type="hidden" name="action" value="remove">
      <label>a unique part of the entry <input name="old_text" size="30" required></label><button>Remove</button></form>
  </details>`
}

/**
 * Both memory files: usage against the cap, each entry, and entries the threat scanner refuses marked with
 * the reason (the system prompt shows those as `[BLOCKED: …]`). With editing on, forms that change the
 * files through the same capped, scanned, locked writes as the agent's tool.
 */
export async function memoryPage(
  memory: MemoryFiles,
  options: { allowEdit: boolean; notice?: string; error?: string },
): Promise<Html> {
  const sections: Html[] = []
  for (const { target, label } of FILES) {
    try {
      const file = await memory.read(target)
      // The file's own verdicts (read() honours entries a person allowed with `engram memory add --allow`).
      const reasons = new Map(file.blocked?.map((b) => [b.entry - 1, b.reason]))
      const entries = file.entries.map((entry, index) => {
        const reason = reasons.get(index)
        return reason === undefined
          ? html`<li><pre>${entry}</pre></li>`
          : html`<li class="blocked"><strong>BLOCKED: ${reason}</strong> <span class="muted">(shown to the model as [BLOCKED: ${reason}])</span><pre>${entry}</pre></li>`
      })
      sections.push(
        html`<h2>${label}</h2><p>${meter(file.chars, file.limit, memory.config.compactTriggerRatio)} · ${file.entries.length} entries</p>
        ${entries.length ? html`<ol>${entries}</ol>` : html`<p class="muted">(empty)</p>`}
        ${options.allowEdit ? forms(target) : ''}`,
      )
    } catch (error) {
      if (!(error instanceof MemoryRefusal)) throw error
      sections.push(html`<h2>${label}</h2><p class="blocked">${error.message}</p>`)
    }
  }
  return page(
    'Memory',
    'memory',
    html`${options.notice ? html`<p><strong>${options.notice}</strong></p>` : ''}${options.error ? html`<p class="blocked">${options.error}</p>` : ''}
    ${options.allowEdit ? '' : html`<p class="muted">Read-only: restart with <code>engram ui --allow-edit</code> to change the files here.</p>`}
    ${sections}`,
  )
}
