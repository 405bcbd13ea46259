'use strict'
// `parse` and `repair`: values as `JSON.parse` gives them, on generated
// documents and JSONTestSuite; errors with kind, offset and path; the
// partial and bigint options; `repair` and lenient mode as the CLI.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const llmstream = require('..')
const { fixtures, cliLines, rng, randomValue } = require('./helpers')

const SUITE = fixtures('json', 'JSONTestSuite', 'test_parsing')
const suite = (prefix) =>
  SUITE ? fs.readdirSync(SUITE).filter((n) => n.startsWith(prefix)).sort().map((n) => path.join(SUITE, n)) : []

/** Whether `error` is one of the package's errors, with its members. */
function assertStageError(error, name) {
  assert.ok(error instanceof Error, 'an Error')
  assert.equal(error.name, name)
  assert.equal(typeof error.kind, 'string')
  assert.ok(error.kind.length > 0)
  assert.ok(error.offset === null || Number.isInteger(error.offset))
  assert.ok(error.path === null || typeof error.path === 'string')
  assert.equal(typeof error.details, 'object')
  return true
}

test('parse equals JSON.parse on generated documents, from text and bytes', () => {
  const next = rng(11)
  for (let i = 0; i < 500; i++) {
    const value = randomValue(next)
    const text = JSON.stringify(value, null, i % 2 ? 2 : undefined)
    const expected = JSON.parse(text)
    assert.deepEqual(llmstream.parse(text), expected)
    assert.deepEqual(llmstream.parse(Buffer.from(text)), expected)
    assert.deepEqual(llmstream.parse(new TextEncoder().encode(text)), expected)
    assert.deepEqual(llmstream.parse(text, { partial: true }), expected)
  }
})

test('numbers read as JSON.parse reads them, and exactly as BigInt with the option', () => {
  const text = '[1e400, -0, 0.1, 1.5e3, 9007199254740993, -123456789012345678901234567890, 2.5e-324]'
  assert.deepEqual(llmstream.parse(text), JSON.parse(text))
  assert.ok(Object.is(llmstream.parse('-0'), -0))
  const big = llmstream.parse(text, { bigint: true })
  assert.equal(big[4], 9007199254740993n)
  assert.equal(big[5], -123456789012345678901234567890n)
  assert.equal(big[3], 1500)
  assert.equal(llmstream.parse('9007199254740991', { bigint: true }), 9007199254740991)
  assert.equal(llmstream.parse('18446744073709551616', { bigint: true }), 18446744073709551616n)
})

test('keys as JSON.parse keeps them: a repeated key and __proto__ as an own member', () => {
  for (const text of ['{"a":1,"b":2,"a":3}', '{"__proto__": 0}', '{"__proto__": {"x": 1}, "y": 2}', '{"constructor": 1}']) {
    const got = llmstream.parse(text)
    const expected = JSON.parse(text)
    assert.deepEqual(Object.keys(got), Object.keys(expected), text)
    assert.deepEqual(got, expected, text)
    assert.equal(Object.getPrototypeOf(got), Object.prototype)
  }
})

test('JSONTestSuite y_ files parse as JSON.parse reads them', { skip: !SUITE && 'needs ../shared/fixtures' }, () => {
  const files = suite('y_')
  assert.ok(files.length > 90)
  for (const file of files) {
    const data = fs.readFileSync(file)
    const expected = JSON.parse(new TextDecoder().decode(data))
    // A lone surrogate escape: JavaScript keeps it, a Rust string holds
    // U+FFFD in its place.
    if (/\\u[dD][89abAB]/.test(data.toString('latin1')) && JSON.stringify(expected).includes('\\ud')) continue
    assert.deepEqual(llmstream.parse(data), expected, path.basename(file))
  }
})

test('JSONTestSuite n_ files throw a JsonError with its offset', { skip: !SUITE && 'needs ../shared/fixtures' }, () => {
  const files = suite('n_')
  assert.ok(files.length > 150)
  for (const file of files) {
    const data = fs.readFileSync(file)
    assert.throws(
      () => llmstream.parse(data),
      (error) => {
        assertStageError(error, 'JsonError')
        assert.ok(error.offset >= 0 && error.offset <= data.length, path.basename(file))
        assert.equal(error.details.offset, error.offset)
        return true
      },
      path.basename(file),
    )
  }
})

test('JSONTestSuite i_ files either parse or throw a JsonError', { skip: !SUITE && 'needs ../shared/fixtures' }, () => {
  for (const file of suite('i_')) {
    try {
      llmstream.parse(fs.readFileSync(file))
    } catch (error) {
      assertStageError(error, 'JsonError')
    }
  }
})

test('errors say what and where: kind, byte offset and path', () => {
  assert.throws(
    () => llmstream.parse('{"a": [1, x]}'),
    (e) => assertStageError(e, 'JsonError') && e.offset === 10 && e.path === 'a[1]',
  )
  assert.throws(
    () => llmstream.parse('{"a": [1, "he'),
    (e) => assertStageError(e, 'JsonError') && e.kind === 'unexpected_end',
  )
  assert.throws(
    () => llmstream.parse('{"a": [1 2]}', { partial: true }),
    (e) => assertStageError(e, 'JsonError') && e.offset === 9,
  )
  assert.throws(() => llmstream.parse('  '), (e) => assertStageError(e, 'JsonError') && e.kind === 'unexpected_end' && e.offset === 2)
  assert.throws(() => llmstream.parse(12), /./)
})

test('partial: the value at the end, as `json --partial` prints it', () => {
  const next = rng(5)
  for (let i = 0; i < 60; i++) {
    const text = JSON.stringify(randomValue(next))
    const cut = text.slice(0, Math.floor(next() * text.length))
    const { code, lines } = cliLines(['json', '--partial'], Buffer.from(cut))
    const got = llmstream.parse(cut, { partial: true })
    if (code === 0) assert.deepEqual(got, lines.length ? lines[0] : null, cut)
  }
  assert.equal(llmstream.parse('   ', { partial: true }), null)
  assert.deepEqual(llmstream.parse('{"a": [1, "he', { partial: true }), { a: [1, 'he'] })
})

test('repair and lenient parse read what models write, as the CLI', () => {
  const texts = [
    "Here's your JSON: ```json\n{'a': True, \"b\": [1, 2,], // note\n c: None}\n```",
    '{"name": "x", "args": {"q": "cut sho',
    '[1, 2, 3',
    "{a: 'b', c: undefined, d: NaN}",
    'prose only, no value at all {',
  ]
  for (const text of texts) {
    const cli = cliLines(['repair'], Buffer.from(text))
    if (cli.code === 0) {
      assert.deepEqual(llmstream.repair(text), cli.lines[0], text)
      assert.deepEqual(llmstream.parse(text, { lenient: true, partial: true }), cli.lines[0], text)
    } else {
      assert.throws(() => llmstream.repair(text), (e) => assertStageError(e, 'JsonError'))
    }
  }
  assert.throws(() => llmstream.repair(''), (e) => assertStageError(e, 'JsonError') && e.kind === 'no_value')
})

module.exports = { assertStageError }
