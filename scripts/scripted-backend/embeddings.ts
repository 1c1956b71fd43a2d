// OpenAI's `POST /v1/embeddings` on the scripted backend (docs/documents.md "Testing"): deterministic vectors, so a
// test can tell what the vector side of hybrid retrieval ranks first. A text's vector is its bag of words hashed into
// 384 dimensions (FNV-1a picks the dimension and the sign): common English words are left out, a plural's trailing
// "s" is dropped, and a small thesaurus maps a few words onto one (feline → cat, apartment → flat, ...), so that a
// paraphrase lands near the passage it paraphrases while sharing none of its words with it.

export const EMBEDDING_DIMENSIONS = 384;

const STOPWORDS = new Set(
  "a an and are as at be by can do does for from has have how i in is it its may my of on or our the their this to was we what when where which who will with you your".split(
    " ",
  ),
);

/** Words that mean one thing, as a real embedding model would place them near each other. */
const THESAURUS: Record<string, string> = {
  feline: "cat",
  kitten: "cat",
  kitty: "cat",
  apartment: "flat",
  dwelling: "flat",
  home: "flat",
  permitted: "allowed",
  welcome: "allowed",
  allow: "allowed",
  permit: "allowed",
  automobile: "car",
  vehicle: "car",
  price: "cost",
  fee: "cost",
  charge: "cost",
};

function fnv1a(word: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/** The words of `text` that count, folded to the thesaurus's word for them. */
export function embeddedWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    let word = match[0];
    if (STOPWORDS.has(word)) continue;
    if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) word = word.slice(0, -1);
    words.push(THESAURUS[word] ?? word);
  }
  return words;
}

/** The scripted vector of a text (not normalized: the server scales it to length 1 itself). */
export function scriptedEmbedding(text: string, dimensions = EMBEDDING_DIMENSIONS): number[] {
  const vector: number[] = Array.from({ length: dimensions }, () => 0);
  for (const word of embeddedWords(text)) {
    const hash = fnv1a(word);
    vector[hash % dimensions]! += hash & 0x80000000 ? -1 : 1;
  }
  // A text of only stop words still gets a vector (a real model never answers all zeros).
  if (!vector.some((value) => value !== 0)) vector[0] = 1;
  return vector;
}

/** OpenAI's answer for a request body `{model, input: string | string[]}`; a body without input is 400. */
export function embeddingsAnswer(body: unknown): { status: number; body: unknown } {
  const input = (body as { input?: unknown } | undefined)?.input;
  const texts = typeof input === "string" ? [input] : input;
  if (!Array.isArray(texts) || texts.some((text) => typeof text !== "string"))
    return { status: 400, body: { error: { message: "input must be a string or an array of strings" } } };
  return {
    status: 200,
    body: {
      object: "list",
      model: (body as { model?: unknown }).model ?? "scripted-embedding",
      data: texts.map((text: string, index) => ({ object: "embedding", index, embedding: scriptedEmbedding(text) })),
      usage: { prompt_tokens: 0, total_tokens: 0 },
    },
  };
}
