/** The session of soak writer `writer` (soak-harness.ts checks it; processes/soak-writer.ts writes it). */
export const soakSessionId = (writer: number | string) => `soak-w${writer}`
