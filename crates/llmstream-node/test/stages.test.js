'use strict'
// SseDecoder, ActionStream, ArgumentStreams and SnapshotChunker: the CLI's
// forms, errors with what and where, a code point cut between two byte
// pieces held by every stage that reads text, and no crash on any input.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')

const llmstream = require('..')
const { fixtures, filesUnder, cliLines, pieces, rng } = require('./helpers')

const SSE_FILES = ['providers', 'providers_more'].flatMap((f) => filesUnder(fixtures(f), ['.sse']))
const CHUNKER_FILES = filesUnder(fixtures('chunker'), ['.jsonl'])

test('SseDecoder equals `llmstream sse` on every SSE recording', { skip: !SSE_FILES.length && 'needs ../shared/fixtures' }, () => {
  assert.ok(SSE_FILES.length > 50)
  for (const file of SSE_FILES) {
    const data = fs.readFileSync(file)
    const expected = cliLines(['sse'], data).lines
    const decoder = new llmstream.SseDecoder()
    const items = []
    for (const chunk of pieces(data, 5)) items.push(...decoder.feed(chunk))
    items.push(...decoder.finish())
    assert.deepEqual(items, expected, file)
  }
})

test('SseDecoder forms: events, retry, comments left out, an unclosed event discarded', () => {
  const decoder = new llmstream.SseDecoder()
  const items = decoder.feed('id: 7\nevent: delta\ndata: a\ndata: b\n\nretry: 10\n\n: hi\n')
  assert.deepEqual(items, [{ event: 'delta', data: 'a\nb', id: '7' }, { retry: 10 }])
  assert.deepEqual(decoder.feed('data: cut'), [])
  assert.deepEqual(decoder.finish(), [])
})

test('an SSE line past the limit is an SseError with its offset', () => {
  const decoder = new llmstream.SseDecoder()
  const limit = 16 << 20
  decoder.feed('data: ok\n\n')
  assert.throws(
    () => decoder.feed(Buffer.concat([Buffer.from('data: '), Buffer.alloc(limit, 'x')])),
    (e) =>
      e.name === 'SseError' &&
      e.kind === 'line_too_long' &&
      e.offset === 10 + limit &&
      e.path === null &&
      e.details.limit === limit,
  )
})

/** Events with consecutive text and argument deltas joined (their cuts
 * follow the pieces). */
function mergedText(events) {
  const out = []
  for (const event of events) {
    const last = out[out.length - 1]
    if (last && ['text', 'argument_delta'].includes(event.type) && last.type === event.type && last.path === event.path) {
      out[out.length - 1] = { ...last, text: last.text + event.text }
    } else out.push({ ...event })
  }
  return out
}

test('ActionStream equals `llmstream actions`, bytes cut inside code points', () => {
  const texts = [
    'Searching.\n```json\n{"action":"search","q":"rust","n":[1,2]}\n```\nDone.',
    'I will call {"action": "weather", "city": "París"} now {"action": "x"',
    'no actions at all, just text é漢😀',
  ]
  for (const text of texts) {
    const data = Buffer.from(text)
    const expected = cliLines(['actions'], data).lines
    for (const most of [1, 2, 4]) {
      const stream = new llmstream.ActionStream()
      const events = []
      for (const chunk of pieces(data, 9, most)) events.push(...stream.feed(chunk))
      events.push(...stream.finish())
      assert.deepEqual(mergedText(events), mergedText(expected), text)
    }
  }
})

test('ArgumentStreams: deltas, values and the end, a code point cut between fragments', () => {
  const streams = new llmstream.ArgumentStreams()
  const raw = Buffer.from('{"city": "Zürich", "days": [1, 2]}')
  const cut = raw.indexOf(Buffer.from('ü')) + 1
  const events = [...streams.feed('call_1', raw.subarray(0, cut)), ...streams.feed('call_1', raw.subarray(cut))]
  events.push(...streams.finish('call_1'))
  const text = events.filter((e) => e.type === 'argument_delta').map((e) => e.text).join('')
  assert.equal(text, 'Zürich')
  assert.ok(events.some((e) => e.type === 'argument' && e.id === 'call_1' && e.path === 'days[0]' && e.value === 1))
  assert.deepEqual(events[events.length - 1], {
    type: 'tool_call_end',
    id: 'call_1',
    arguments: { city: 'Zürich', days: [1, 2] },
  })
  assert.deepEqual(streams.ids, ['call_1'])
  assert.throws(() => streams.finish('call_1'), (e) => e.name === 'ToolError' && e.kind === 'unknown_call')
})

test('ArgumentStreams errors: invalid arguments with their offset, text that does not extend', () => {
  const streams = new llmstream.ArgumentStreams()
  const errors = streams.feed('c', '{"a": 1 2}').filter((e) => e.type === 'error')
  assert.equal(errors[0].kind, 'invalid_arguments')
  assert.equal(errors[0].error.offset, 8)
  assert.equal(streams.finish('c').at(-1).type, 'tool_call_end')
  const accumulated = new llmstream.ArgumentStreams()
  const whole = [...accumulated.feedAccumulated('d', '{"q": "a'), ...accumulated.feedAccumulated('d', '{"q": "ab"}')]
  assert.equal(whole.filter((e) => e.type === 'argument_delta').map((e) => e.text).join(''), 'ab')
  const wrong = accumulated.feedAccumulated('d', '{"x"')
  assert.equal(wrong[0].type, 'error')
  assert.equal(wrong[0].kind, 'not_extending')
})

test('SnapshotChunker equals `llmstream chunk` on the MAUI streams, from text and from values', { skip: !CHUNKER_FILES.length && 'needs ../shared/fixtures' }, () => {
  for (const file of CHUNKER_FILES) {
    const data = fs.readFileSync(file)
    const expected = cliLines(['chunk'], data).lines
    const lines = data.toString('utf8').split('\n').filter((l) => l.trim())
    const chunker = new llmstream.SnapshotChunker()
    const chunks = lines.flatMap((line) => chunker.feed(line))
    assert.equal(chunker.snapshots, lines.length)
    chunks.push(...chunker.finish())
    assert.deepEqual(chunks, expected, file)
    const again = new llmstream.SnapshotChunker()
    const fromValues = lines.flatMap((line) => again.feed(JSON.parse(line))).join('') + again.finish().join('')
    assert.equal(fromValues, expected.join(''))
  }
})

test('SnapshotChunker errors: a snapshot that does not extend, text that is not JSON', () => {
  const chunker = new llmstream.SnapshotChunker()
  chunker.feed('{"t": "Tok"}')
  assert.throws(
    () => chunker.feed('{"t": "Paris"}'),
    (e) => e.name === 'ChunkError' && e.kind === 'string_not_extended' && e.path === 't' && e.snapshot === 2,
  )
  assert.throws(() => chunker.feed('{"t": '), (e) => e.name === 'JsonError')
})

test('a code point cut between byte pieces is held by every stage', () => {
  const text = '{"a": "é漢😀", "b": ["ß"]}'
  const data = Buffer.from(text)
  const sse = Buffer.from(`data: ${text}\n\n`)
  for (let at = 1; at < data.length; at++) {
    const parser = new llmstream.JsonParser()
    parser.feed(data.subarray(0, at))
    parser.feed(data.subarray(at))
    parser.finish()
    assert.deepEqual(parser.snapshot, JSON.parse(text))
    const decoder = new llmstream.SseDecoder()
    const items = [...decoder.feed(sse.subarray(0, at + 6)), ...decoder.feed(sse.subarray(at + 6))]
    assert.deepEqual(items, [{ event: 'message', data: text, id: '' }])
    const actions = new llmstream.ActionStream()
    const events = [...actions.feed(data.subarray(0, at)), ...actions.feed(data.subarray(at)), ...actions.finish()]
    assert.deepEqual(events.filter((e) => e.type === 'json'), [{ type: 'json', value: JSON.parse(text) }])
    const streams = new llmstream.ArgumentStreams()
    streams.feed('c', data.subarray(0, at))
    streams.feed('c', data.subarray(at))
    assert.deepEqual(streams.finish('c').at(-1).arguments, JSON.parse(text))
  }
})

test('no input crashes a stage: random bytes and damaged documents give events or the stage error', () => {
  const next = rng(99)
  const names = new Set(['JsonError', 'SseError', 'ToolError', 'ChunkError'])
  const stages = [
    (b) => llmstream.parse(b),
    (b) => llmstream.parse(b, { partial: true, lenient: true }),
    (b) => llmstream.repair(b),
    (b) => {
      const p = new llmstream.JsonParser()
      p.feed(b)
      void p.snapshot
      p.finish()
    },
    (b) => {
      const p = new llmstream.Pipeline()
      p.feed(b)
      p.finish()
      void p.message
    },
    (b) => {
      const s = new llmstream.ArgumentStreams()
      s.feed('x', b)
      s.finish('x')
    },
    (b) => {
      const a = new llmstream.ActionStream()
      a.feed(b)
      a.finish()
    },
    (b) => new llmstream.SnapshotChunker().feed(b),
  ]
  const alphabet = Buffer.from('{}[]":,\\ \nabcdeftrunl0123456789.-+eE\u00ff\u0080data: event:')
  for (let i = 0; i < 3000; i++) {
    const len = Math.floor(next() * 64)
    const bytes = Buffer.alloc(len)
    for (let k = 0; k < len; k++) {
      bytes[k] = next() < 0.8 ? alphabet[Math.floor(next() * alphabet.length)] : Math.floor(next() * 256)
    }
    for (const stage of stages) {
      try {
        stage(bytes)
      } catch (error) {
        assert.ok(error instanceof Error)
        assert.ok(names.has(error.name), `${error.name}: ${error.message} for ${JSON.stringify(bytes.toString('latin1'))}`)
      }
    }
  }
})
