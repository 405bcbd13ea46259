'use strict'
// `JsonParser`: events as the CLI prints them, and the live snapshot,
// updated in place, equal after every piece to a fresh conversion of the
// library's snapshot, whatever the cuts.

const test = require('node:test')
const assert = require('node:assert/strict')

const llmstream = require('..')
const { cliLines, pieces, rng, randomValue } = require('./helpers')

test('the live snapshot equals a fresh copy after every piece, and the value at the end', () => {
  const next = rng(21)
  for (let i = 0; i < 150; i++) {
    const text = Buffer.from(JSON.stringify(randomValue(next), null, i % 3 === 0 ? 1 : undefined))
    for (const [seed, quiet] of [[i, false], [i + 1000, true]]) {
      const parser = new llmstream.JsonParser({ events: !quiet })
      for (const piece of pieces(text, seed, 1 + (i % 16))) {
        const events = parser.feed(piece)
        if (quiet) assert.deepEqual(events, [])
        // Read now and then, as a UI that does not read after every piece.
        if (quiet && next() < 0.5) continue
        const live = parser.snapshot
        assert.deepEqual(live, parser.snapshotCopy())
      }
      parser.finish()
      assert.deepEqual(parser.snapshot, JSON.parse(text))
      assert.equal(parser.bytesFed, text.length)
    }
  }
})

test('the live snapshot is the same object from read to read, grown in place', () => {
  const parser = new llmstream.JsonParser()
  parser.feed('{"items": [1, 2')
  const first = parser.snapshot
  const items = first.items
  parser.feed(', 3], "text": "hel')
  const second = parser.snapshot
  assert.equal(second, first)
  assert.equal(second.items, items)
  assert.deepEqual(second, { items: [1, 2, 3], text: 'hel' })
  parser.feed('lo"}')
  assert.deepEqual(parser.snapshot, { items: [1, 2, 3], text: 'hello' })
  assert.equal(parser.snapshot, first)
  // A copy is its own object.
  assert.notEqual(parser.snapshotCopy(), first)
  assert.equal(new llmstream.JsonParser().snapshot, null)
})

test('a long open array is grown, not copied: earlier items stay the same objects', () => {
  const parser = new llmstream.JsonParser({ events: false })
  parser.feed('[')
  const seen = []
  for (let i = 0; i < 2000; i++) {
    parser.feed(`{"n": ${i}},`)
    const live = parser.snapshot
    if (i % 500 === 0) seen.push(live[i])
  }
  const live = parser.snapshot
  assert.equal(live.length, 2000)
  seen.forEach((item, k) => assert.equal(live[k * 500], item))
})

test('lenient snapshots equal a fresh copy after every piece', () => {
  const texts = [
    "Sure! ```json\n{'name': 'Ada', tags: ['x', 'y',], ok: True, note: \"say \"hi\" now\"}\n``` done",
    '{"a": 1} {"b": 2} {"c": [3',
    "{'a', 'b', 'c'}",
    '{"x": (1 + 2), "y": /ab+c/, "z": undefined}',
  ]
  for (const text of texts) {
    const data = Buffer.from(text)
    for (const seed of [1, 2, 3]) {
      const parser = new llmstream.JsonParser({ lenient: true })
      let fed = 0
      for (const piece of pieces(data, seed, 5)) {
        assert.deepEqual(parser.feed(piece), [])
        fed += piece.length
        assert.deepEqual(parser.snapshot, parser.snapshotCopy(), `${text} at ${fed}`)
      }
      parser.finish()
      assert.deepEqual(parser.snapshot, llmstream.repair(text))
    }
  }
})

test('events equal the CLI `json --emit events` lines, a byte at a time', () => {
  const next = rng(8)
  const texts = [
    '{"a": [1, "x\\u00e9y", {"b": null}], "c": true, "d": 1.5e3}',
    '[{"k": "é漢😀"}, [], {}]',
    ...Array.from({ length: 30 }, () => JSON.stringify(randomValue(next))),
  ]
  for (const text of texts) {
    const data = Buffer.from(text)
    const cli = cliLines(['json', '--emit', 'events', '--chunk-size', '1'], data).lines
    const parser = new llmstream.JsonParser()
    const events = []
    for (let i = 0; i < data.length; i++) events.push(...parser.feed(data.subarray(i, i + 1)))
    events.push(...parser.finish())
    assert.deepEqual(events, cli, text)
  }
})

test('bigint snapshots keep integers beyond 2^53 exact', () => {
  const parser = new llmstream.JsonParser({ bigint: true })
  parser.feed('{"id": 12345678901234567890, "n": 1,')
  assert.deepEqual(parser.snapshot, { id: 12345678901234567890n, n: 1 })
})

test('a JsonParser error is a JsonError with where it happened', () => {
  const parser = new llmstream.JsonParser()
  parser.feed('{"a": [tru')
  assert.throws(
    () => parser.feed('x]}'),
    (e) => e.name === 'JsonError' && e.offset === 10 && e.path === 'a[0]' && typeof e.kind === 'string',
  )
  assert.throws(() => new llmstream.JsonParser().finish(), (e) => e.name === 'JsonError')
})
