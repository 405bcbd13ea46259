// The declarations, checked by `tsc -p test/tsconfig.json` (`npm test`):
// the event unions narrow on `type`, and a member read on the wrong event
// is a type error (each `@ts-expect-error` fails the check if it is not).

import {
  ActionEvent,
  JsonEvent,
  JsonParser,
  LlmstreamError,
  Message,
  Pipeline,
  SseItem,
  StreamEvent,
  ToolEvent,
  events,
  parse,
} from '../index'

export function describe(e: StreamEvent): string {
  switch (e.type) {
    case 'text_delta':
    case 'reasoning_delta':
    case 'refusal_delta':
      return e.text
    case 'tool_call_start':
      return `${e.choice} ${e.call} ${e.id} ${e.name} ${e.kind ?? ''}`
    case 'tool_call_end':
      return JSON.stringify(e.arguments) + (e.arguments_error?.kind ?? '')
    case 'usage':
      return `${e.input_tokens ?? 0} ${e.output_tokens ?? 0} ${e.reasoning_tokens ?? 0}`
    case 'finish': {
      const normalized: 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'refusal' | 'other' = e.normalized
      return `${e.reason} ${normalized}`
    }
    case 'error':
      return e.message
    case 'message_start':
      return e.provider
    default:
      return e.type
  }
}

export function wrongMembers(e: StreamEvent): void {
  if (e.type === 'usage') {
    // @ts-expect-error a usage event has no text
    void e.text
  }
  if (e.type === 'text_delta') {
    // @ts-expect-error a text delta has no arguments
    void e.arguments
  }
  // @ts-expect-error not an event type
  if (e.type === 'text') return
}

export function json(e: JsonEvent): string {
  switch (e.type) {
    case 'string_delta':
      return e.path + e.text
    case 'number':
      return e.pointer + e.value.toFixed(1)
    case 'bool':
      return String(e.value)
    default:
      return e.type
  }
}

export function sse(item: SseItem): string {
  return 'retry' in item ? String(item.retry) : item.event + item.data + item.id
}

export function tool(e: ToolEvent | ActionEvent): string {
  switch (e.type) {
    case 'argument_delta':
      return e.text
    case 'tool_call_end':
      return JSON.stringify(e.arguments)
    default:
      return e.type
  }
}

export async function stream(body: ReadableStream<Uint8Array>): Promise<Message | null> {
  const pipeline = new Pipeline({ provider: 'anthropic', lenientArguments: true })
  for await (const e of events(body, { provider: 'auto' })) describe(e)
  const message = pipeline.message
  if (message) {
    const first = message.choices[0]
    void first.text.length
    void first.tool_calls.map((call) => call.name)
  }
  // @ts-expect-error not a provider
  void new Pipeline({ provider: 'openai' })
  return message
}

export function parsing(): void {
  const parser = new JsonParser({ events: false, bigint: true })
  parser.feed(new Uint8Array([123]))
  parser.feed('}')
  void parser.snapshot
  void parse('1', { partial: true, lenient: false })
  try {
    parse('x')
  } catch (error) {
    const e = error as LlmstreamError
    const where: [string, number | null, string | null] = [e.kind, e.offset, e.path]
    void where
  }
}
