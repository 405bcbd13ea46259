// Type declarations of the llmstream package. Every event, item and message
// is one of the library's JSON forms, as the llmstream CLI prints them
// (docs/CLI.md); the unions are discriminated on `type`, so that
// `switch (e.type)` narrows.

/** What `feed` takes: bytes (a `Buffer` is a `Uint8Array`) or text. */
export type Piece = Uint8Array | string

/** A JSON value as `JSON.parse` gives it (`bigint` with the option). */
export type Json = null | boolean | number | bigint | string | Json[] | { [key: string]: Json }

/** The package's version. */
export declare const version: string

/** A stage's error: `name` is `JsonError`, `SseError`, `ToolError` or
 * `ChunkError`. */
export interface LlmstreamError extends Error {
  name: 'JsonError' | 'SseError' | 'ToolError' | 'ChunkError'
  /** What went wrong, e.g. `unexpected_byte`, `incomplete`, `line_too_long`. */
  kind: string
  /** The byte offset in the input, where there is one. */
  offset: number | null
  /** The JSON path (`a.b[0]`), where there is one. */
  path: string | null
  /** The library error's whole JSON form. */
  details: { [key: string]: Json }
  /** `ChunkError`: the snapshot's number. */
  snapshot?: number
}

export interface ParseOptions {
  /** A document cut short is not an error: the value at the end, `null`
   * where no value began (as `llmstream json --partial`). */
  partial?: boolean
  /** Read what models write: prose, fences, quotes, literals, comments
   * (docs/LENIENT.md). */
  lenient?: boolean
  /** Integers beyond 2^53 as exact `BigInt`s. */
  bigint?: boolean
}

/** Parses a whole JSON document. Throws a `JsonError`. */
export declare function parse(data: Piece, options?: ParseOptions): unknown

/** The value a person reads in a text cut short or not quite JSON, as
 * `llmstream repair`. Throws a `JsonError` where the text holds no value. */
export declare function repair(text: Piece): unknown

// ---- JsonParser -------------------------------------------------------

interface JsonEventBase {
  /** The path, like `a.b[0]`. */
  path: string
  /** The JSON Pointer, like `/a/b/0`. */
  pointer: string
}

/** An event of `JsonParser` (`llmstream json --emit events`). */
export type JsonEvent =
  | (JsonEventBase & { type: 'start_object' | 'end_object' | 'start_array' | 'end_array' })
  | (JsonEventBase & { type: 'string_delta'; text: string })
  | (JsonEventBase & { type: 'string'; value: string })
  | (JsonEventBase & { type: 'number'; value: number })
  | (JsonEventBase & { type: 'bool'; value: boolean })
  | (JsonEventBase & { type: 'null'; value: null })

export interface JsonParserOptions {
  /** Lenient mode (no events then; the snapshot shows the lenient value). */
  lenient?: boolean
  /** `false`: `feed` and `finish` return no events (for a reader of the
   * snapshot only). */
  events?: boolean
  /** Integers beyond 2^53 in the snapshot as exact `BigInt`s. */
  bigint?: boolean
}

/** An incremental JSON parser: feed pieces cut anywhere, get events and a
 * live snapshot. */
export declare class JsonParser {
  constructor(options?: JsonParserOptions)
  /** Throws a `JsonError`. */
  feed(piece: Piece): JsonEvent[]
  /** Throws a `JsonError` when the document is incomplete or invalid. */
  finish(): JsonEvent[]
  /** The live partial value, or `null`. The same objects are returned from
   * read to read and updated in place: do not modify them. */
  readonly snapshot: unknown
  /** The live partial value converted afresh, or `null`. */
  snapshotCopy(): unknown
  readonly bytesFed: number
}

// ---- SseDecoder -------------------------------------------------------

/** An item of `SseDecoder` (`llmstream sse`): a dispatched event, or a
 * valid retry field. */
export type SseItem = { event: string; data: string; id: string } | { retry: number }

/** Decodes a `text/event-stream` body fed in pieces cut anywhere. */
export declare class SseDecoder {
  constructor()
  /** Throws an `SseError` past a limit. */
  feed(piece: Piece): SseItem[]
  finish(): SseItem[]
}

// ---- Pipeline ---------------------------------------------------------

export type ProviderName = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini'

/** A JSON error's form (an arguments error, a payload's parse error). */
export interface ErrorForm {
  message: string
  kind: string
  offset?: number
  path?: string
  [member: string]: Json | undefined
}

/** Token counts. */
export interface Usage {
  input_tokens: number | null
  output_tokens: number | null
  total_tokens: number | null
  reasoning_tokens?: number
  cached_input_tokens?: number
  cache_write_input_tokens?: number
  server_tool_use?: { [key: string]: Json }
}

type PartKind = 'text' | 'reasoning' | 'refusal'
type Normalized = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'refusal' | 'other'

/** A normalized event of `Pipeline` (`llmstream accumulate --events`). */
export type StreamEvent =
  | { type: 'message_start'; id: string | null; model: string | null; provider: ProviderName }
  | { type: 'role'; choice: number; role: string }
  | { type: 'part_start'; choice: number; kind: PartKind }
  | { type: 'text_delta' | 'reasoning_delta' | 'refusal_delta'; choice: number; text: string }
  | { type: 'part_replace'; choice: number; part: number; kind: PartKind; text: string }
  | { type: 'reasoning_signature'; choice: number; part: number; signature: string }
  | { type: 'raw_part'; choice: number; value: Json }
  | { type: 'raw_part_member'; choice: number; part: number; member: string; value: Json }
  | { type: 'raw_part_append'; choice: number; part: number; member: string; text: string }
  | { type: 'raw_part_replace'; choice: number; part: number; value: Json }
  | { type: 'citation'; choice: number; part: number; citation: Json }
  | { type: 'citation_replace'; choice: number; part: number; index: number; citation: Json }
  | { type: 'logprobs'; choice: number; part: number; logprobs: Json[] }
  | { type: 'phase'; choice: number; part: number; phase: string }
  | { type: 'parts_reorder'; choice: number; start: number; order: number[] }
  | { type: 'tool_call_start'; choice: number; call: number; id: string; name: string; kind?: string }
  | { type: 'tool_call_identity'; choice: number; call: number; id?: string; name?: string }
  | { type: 'tool_call_signature'; choice: number; call: number; signature: string }
  | { type: 'tool_call_delta'; choice: number; call: number; fragment: string }
  | { type: 'argument_delta'; choice: number; call: number; path: string; text: string }
  | { type: 'argument'; choice: number; call: number; path: string; value: Json }
  | {
      type: 'arguments_replace'
      choice: number
      call: number
      text: string
      arguments?: Json
      arguments_error?: ErrorForm
    }
  | {
      type: 'tool_call_end'
      choice: number
      call: number
      id: string
      name: string
      arguments: Json
      arguments_error?: ErrorForm
    }
  | { type: 'arguments_error'; choice: number; call: number; error: ErrorForm }
  | { type: 'provider_tool_start'; choice: number; call: number; id: string; name: string; kind?: string }
  | { type: 'provider_tool_delta'; choice: number; call: number; fragment: string }
  | { type: 'provider_tool_progress'; choice: number; call: number; status: string; detail?: Json }
  | { type: 'provider_tool_result'; choice: number; call: number; result: Json }
  | { type: 'provider_tool_end'; choice: number; call: number; arguments: Json; arguments_error?: ErrorForm }
  | { type: 'detail'; choice?: number; key: string; value: Json }
  | ({ type: 'usage' } & Usage)
  | { type: 'finish'; choice: number; reason: string; normalized: Normalized }
  | { type: 'finish_details'; choice: number; details: Json }
  | {
      type: 'error'
      message: string
      kind: string
      raw?: Json
      parse_error?: ErrorForm
      from_provider?: true
    }
  | { type: 'complete' }
  | { type: 'reopen' }

/** A tool call of the message. */
export interface ToolCall {
  id: string
  name: string
  arguments: Json
  arguments_text: string
  arguments_error?: ErrorForm
  [member: string]: unknown
}

/** A choice of the message. */
export interface Choice {
  index: number
  role: string | null
  content: Json[]
  text: string
  reasoning: string
  refusal: string
  tool_calls: ToolCall[]
  finish_reason: string | null
  [member: string]: unknown
}

/** The normalized message (`llmstream accumulate`). */
export interface Message {
  provider: ProviderName
  id: string | null
  model: string | null
  choices: Choice[]
  usage: Usage
  complete: boolean
  error: { [key: string]: Json } | null
  [member: string]: unknown
}

export interface PipelineOptions {
  /** `"auto"` (detected from the first payload) or a provider's name. */
  provider?: 'auto' | ProviderName
  /** Tool-call arguments that are not JSON are read in lenient mode. */
  lenientArguments?: boolean
  /** An SSE event the body ends inside is discarded, as the standard says. */
  strictSseEnd?: boolean
}

/** Normalizes a provider's streaming body (SSE, JSON Lines or a JSON array
 * of payloads) fed in pieces cut anywhere. */
export declare class Pipeline {
  constructor(options?: PipelineOptions)
  /** Throws an `SseError` past an SSE limit. */
  feed(piece: Piece): StreamEvent[]
  finish(): StreamEvent[]
  /** The message so far, or `null` before the first provider payload. */
  readonly message: Message | null
  /** The provider named or detected, or `null` before detection. */
  readonly provider: ProviderName | null
}

/** The normalized events of a whole streaming body (`fetch`'s
 * `response.body`, a Node stream, an async generator of pieces). */
export declare function events(
  source: AsyncIterable<Piece> | ReadableStream<Uint8Array> | Iterable<Piece>,
  options?: PipelineOptions,
): AsyncGenerator<StreamEvent, void, undefined>

// ---- Tools ------------------------------------------------------------

/** An event of `ArgumentStreams`. */
export type ToolEvent =
  | { type: 'argument_delta'; id: string; path: string; text: string }
  | { type: 'argument'; id: string; path: string; value: Json }
  | { type: 'tool_call_end'; id: string; arguments: Json }
  | { type: 'error'; id: string; message: string; kind: string; error?: ErrorForm; [member: string]: unknown }

/** Per-call streams of tool-call arguments, keyed by call id. */
export declare class ArgumentStreams {
  constructor()
  feed(toolId: string, fragment: Piece): ToolEvent[]
  feedAccumulated(toolId: string, text: Piece): ToolEvent[]
  /** Throws a `ToolError` for a call that is not open. */
  finish(toolId: string): ToolEvent[]
  readonly ids: string[]
}

/** An event of `ActionStream` (`llmstream actions`). */
export type ActionEvent =
  | { type: 'text'; text: string }
  | { type: 'tool_call_start'; call: number; name: string }
  | { type: 'argument_delta'; call: number; path: string; text: string }
  | { type: 'argument'; call: number; path: string; value: Json }
  | { type: 'tool_call_end'; call: number; name: string; arguments: Json }
  | { type: 'json'; value: Json }
  | { type: 'error'; call?: number; message: string; partial?: Json }

/** JSON action objects (tool calls) in model text, possibly inside
 * ```json fences. */
export declare class ActionStream {
  constructor()
  /** A `string`, or bytes (a cut code point is held). */
  feed(text: Piece): ActionEvent[]
  finish(): ActionEvent[]
}

// ---- SnapshotChunker --------------------------------------------------

/** Turns complete snapshots into chunks whose concatenation is the final
 * JSON text. */
export declare class SnapshotChunker {
  constructor()
  /** JSON text, or a value (written with `JSON.stringify`). Throws a
   * `JsonError` for text that is not JSON, a `ChunkError` for a snapshot
   * that does not extend the last. */
  feed(snapshot: Piece | Json): string[]
  finish(): string[]
  readonly snapshots: number
}
