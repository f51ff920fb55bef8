import { z } from 'zod';
import type { EmbeddingsConfig } from '../config/config.types';
import { unitVector } from './domain/dense-ranking';

/** Every {@link EmbeddingsFailure}, for metrics: the one list the type is read from. */
export const EMBEDDINGS_FAILURES = ['timeout', 'http_error', 'unreachable', 'invalid_response', 'dimension'] as const;

/**
 * Why an embeddings answer could not be used; the label set of
 * `centralmcp_router_embeddings_failures_total`. `dimension`: the answer's vectors are not as
 * long as the catalog's (the model behind the endpoint changed).
 */
export type EmbeddingsFailure = (typeof EMBEDDINGS_FAILURES)[number];

/** One request's outcome: a unit vector per text, in the texts' order, or why not. */
export type EmbedAnswer = { ok: true; vectors: Float32Array[] } | { ok: false; reason: Exclude<EmbeddingsFailure, 'dimension'>; httpStatus?: number };

/** Largest answer read: 32 texts of 4,096 dimensions as JSON are about 3 MB. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/**
 * A client of an OpenAI-compatible `POST /v1/embeddings` (OpenAI, Azure OpenAI, Ollama, vLLM,
 * Hugging Face TEI, LiteLLM): `{model, input: [texts]}` in, `{data: [{index, embedding}]}` out.
 * Never throws: every failure is an answer with a reason. What it sends (texts, headers) is never
 * logged here or in an error.
 */
export class EmbeddingsClient {
  constructor(private readonly config: EmbeddingsConfig) {}

  /**
   * Embeds `texts` within `timeoutMs` (the whole exchange, body included). `signal` aborts it
   * early (shutdown); an aborted request answers `timeout`.
   */
  async embed(texts: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<EmbedAnswer> {
    const deadline = AbortSignal.timeout(timeoutMs);
    const abort = signal === undefined ? deadline : AbortSignal.any([deadline, signal]);
    let response: Response;
    try {
      response = await fetch(this.config.url, {
        method: 'POST',
        headers: { ...this.config.headers, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ model: this.config.model, input: texts }),
        // A redirect would carry the credentials elsewhere: an endpoint that moved is a failure.
        redirect: 'error',
        signal: abort,
      });
    } catch {
      return { ok: false, reason: abort.aborted ? 'timeout' : 'unreachable' };
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return { ok: false, reason: 'http_error', httpStatus: response.status };
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBounded(response, MAX_ANSWER_BYTES));
    } catch {
      return { ok: false, reason: abort.aborted ? 'timeout' : 'invalid_response' };
    }
    const vectors = vectorsOf(body, texts.length);
    return vectors === undefined ? { ok: false, reason: 'invalid_response' } : { ok: true, vectors };
  }
}

/** The body as text, or a throw once it passes `maxBytes`. */
async function readBounded(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) throw new Error('answer too large');
  const reader: ReadableStreamDefaultReader<Uint8Array> | undefined = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new Error('answer too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One item of the answer's `data`: its vector (its numbers are checked by {@link unitVector}, not
 * copied here) and its place among the texts, which the endpoint may leave out.
 */
const EmbeddingItemSchema = z.looseObject({
  index: z.unknown().optional(),
  embedding: z.custom<readonly unknown[]>((value) => Array.isArray(value)),
});
type EmbeddingItem = z.infer<typeof EmbeddingItemSchema>;

/** An OpenAI-compatible embeddings answer, as far as the router reads it. */
const EmbeddingsAnswerSchema = z.looseObject({ data: z.array(EmbeddingItemSchema) });

function hasIndex(item: EmbeddingItem): item is EmbeddingItem & { index: number } {
  return typeof item.index === 'number';
}

/**
 * One unit vector per text, in the order of the texts (`index` when every item has one, else the
 * list's order), all of one length; undefined when the answer is anything else.
 */
function vectorsOf(body: unknown, count: number): Float32Array[] | undefined {
  const answer = EmbeddingsAnswerSchema.safeParse(body);
  if (!answer.success || answer.data.data.length !== count) return undefined;
  const items = answer.data.data;
  const indexed = items.every(hasIndex);
  const ordered = indexed ? [...items].sort((a, b) => a.index - b.index) : items;
  if (indexed && ordered.some((item, i) => item.index !== i)) return undefined;
  const vectors: Float32Array[] = [];
  for (const item of ordered) {
    const vector = unitVector(item.embedding);
    if (vector === undefined || (vectors.length > 0 && vector.length !== vectors[0].length)) return undefined;
    vectors.push(vector);
  }
  return vectors;
}
