import { Embeddings } from '@langchain/core/embeddings'

/**
 * A deterministic embedder behind LangChain's real Embeddings interface: a bag of concepts, where each
 * word maps to a concept (synonyms share one) and each concept to one dimension. Two texts about the same
 * concepts are close whatever their words, which is what a model's vectors do and full-text search cannot.
 */
export const CONCEPTS: Record<string, string> = {
  car: 'vehicle',
  automobile: 'vehicle',
  truck: 'vehicle',
  汽车: 'vehicle',
  dog: 'pet',
  puppy: 'pet',
  cat: 'pet',
  deploy: 'release',
  release: 'release',
  ship: 'release',
}
const DIMENSIONS = [...new Set(Object.values(CONCEPTS))]
export const FAKE_DIMS = DIMENSIONS.length + 1

export class ConceptEmbeddings extends Embeddings {
  /** Every text embedded, documents and queries, in order. */
  readonly seen: string[] = []

  constructor() {
    super({})
  }

  private vector(text: string): number[] {
    this.seen.push(text)
    const vector = new Array<number>(FAKE_DIMS).fill(0)
    vector[FAKE_DIMS - 1] = 0.01 // no text is the zero vector
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      for (const [term, concept] of Object.entries(CONCEPTS)) {
        if (word === term || word.includes(term))
          vector[DIMENSIONS.indexOf(concept)] = (vector[DIMENSIONS.indexOf(concept)] ?? 0) + 1
      }
    }
    return vector
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((text) => this.vector(text))
  }

  async embedQuery(text: string): Promise<number[]> {
    return this.vector(text)
  }
}
