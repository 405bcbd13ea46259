// The package from an ES module: named imports and the default export.
import test from 'node:test'
import assert from 'node:assert/strict'

import llmstream, { events, parse, JsonParser, Pipeline, SseDecoder, version } from '../index.js'

test('named imports are the CommonJS exports', async () => {
  assert.equal(parse, llmstream.parse)
  assert.equal(typeof version, 'string')
  assert.deepEqual(parse('{"a": [1]}'), { a: [1] })
  const parser = new JsonParser()
  parser.feed('[1, "x')
  assert.deepEqual(parser.snapshot, [1, 'x'])
  assert.ok(new Pipeline() instanceof Pipeline)
  assert.deepEqual(new SseDecoder().feed('data: 1\n\n'), [{ event: 'message', data: '1', id: '' }])
  const got = []
  for await (const e of events(['data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n'])) got.push(e.type)
  assert.ok(got.includes('text_delta'))
})
