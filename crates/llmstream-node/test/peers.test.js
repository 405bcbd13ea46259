'use strict'
// The partial-JSON vectors of the Vercel AI SDK and openai-node
// (../shared/fixtures/json_peers): `parse(input, {partial: true})` gives
// the peer's value except in the cases the package README lists, with why;
// the test reads that table and fails if a case appears or disappears.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const llmstream = require('..')
const { fixtures } = require('./helpers')

const PEERS = fixtures('json_peers')
const SUITES = ['vercel_ai_fixjson.json', 'openai_node_partial_json.json']

/** The cases the README's table lists as differing, e.g.
 * `vercel_ai_fixjson.json #1`. */
function documented() {
  const readme = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8')
  const rows = readme.matchAll(/^\| ([a-z_]+\.json #\d+) \|/gm)
  return new Set(Array.from(rows, (m) => m[1]))
}

/** Whether `input` is a whole document whose value is `null` (a partial
 * parse gives `null` both for that and for no value at all). */
function isNullDocument(input) {
  try {
    return llmstream.parse(input) === null
  } catch {
    return false
  }
}

/** Whether llmstream reads `input` as the suite expects: the value,
 * `NOVALUE` (nothing yet) or `ERROR`. */
function agrees(input, expected) {
  let got
  try {
    got = llmstream.parse(input, { partial: true })
  } catch (error) {
    assert.equal(error.name, 'JsonError', `${input}: ${error}`)
    return expected === 'ERROR'
  }
  if (got === null) {
    return isNullDocument(input) ? expected === null : expected === 'NOVALUE'
  }
  return JSON.stringify(got) === JSON.stringify(expected)
}

test('the peers partial-JSON vectors: equal but for the documented cases', { skip: !PEERS && 'needs ../shared/fixtures' }, () => {
  const differ = new Set()
  let compared = 0
  for (const suite of SUITES) {
    const cases = JSON.parse(fs.readFileSync(path.join(PEERS, suite), 'utf8'))
    cases.forEach((c, n) => {
      compared += 1
      if (!agrees(c.input, c.expected)) differ.add(`${suite} #${n}`)
    })
  }
  assert.equal(compared, 75)
  assert.deepEqual([...differ].sort(), [...documented()].sort())
})
