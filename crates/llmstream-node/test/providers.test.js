'use strict'
// Every provider recording through `Pipeline`, in random pieces, gives the
// events and the message `llmstream accumulate` prints; `events()` over an
// async iterable, a ReadableStream and a `fetch` body from a local server
// gives the same events.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const http = require('node:http')
const path = require('node:path')
const { Readable } = require('node:stream')

const llmstream = require('..')
const { FIXTURES, recordings, cliLines, pieces, rng } = require('./helpers')

const RECORDINGS = recordings()
const noFixtures = RECORDINGS.length === 0 && 'needs ../shared/fixtures'

function runPipeline(chunks, options) {
  const pipeline = new llmstream.Pipeline(options)
  const events = []
  for (const chunk of chunks) events.push(...pipeline.feed(chunk))
  events.push(...pipeline.finish())
  return { events, message: pipeline.message }
}

async function collect(asyncIterable) {
  const out = []
  for await (const item of asyncIterable) out.push(item)
  return out
}

/** What the CLI prints for a recording: its events and its message. */
const expected = new Map()
function cliOf(file) {
  if (!expected.has(file)) {
    const data = fs.readFileSync(file)
    const events = cliLines(['accumulate', '--events'], data).lines
    const { code, lines } = cliLines(['accumulate'], data)
    expected.set(file, { events, message: code === 0 ? lines[0] : null })
  }
  return expected.get(file)
}

test('every recording through Pipeline in random pieces equals the CLI', { skip: noFixtures }, async (t) => {
  assert.ok(RECORDINGS.length >= 150, `only ${RECORDINGS.length} recordings found`)
  for (const file of RECORDINGS) {
    await t.test(path.relative(FIXTURES, file), async () => {
      const data = fs.readFileSync(file)
      const cli = cliOf(file)
      for (const seed of [1, 2]) {
        const chunks = pieces(data, seed, data.length > 20000 ? 64 : 16)
        const { events, message } = runPipeline(chunks)
        assert.deepEqual(events, cli.events)
        assert.deepEqual(message, cli.message)
        const fromAsync = await collect(llmstream.events(Readable.from(chunks)))
        assert.deepEqual(fromAsync, events)
      }
    })
  }
})

test('events() reads a ReadableStream, an async generator and string pieces', { skip: noFixtures }, async () => {
  for (const file of RECORDINGS.filter((_, i) => i % 10 === 0)) {
    const data = fs.readFileSync(file)
    const chunks = pieces(data, 7)
    const { events } = runPipeline(chunks)
    const stream = new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new Uint8Array(chunk))
        controller.close()
      },
    })
    assert.deepEqual(await collect(llmstream.events(stream)), events)
    async function* generator() {
      yield* chunks
    }
    assert.deepEqual(await collect(llmstream.events(generator())), events)
    // Whole text as one string: a string piece is its UTF-8.
    assert.deepEqual(runPipeline([data.toString('utf8')]).events, runPipeline([data]).events)
  }
})

test('Pipeline options: a forced provider, lenient arguments and a strict SSE end match the CLI', { skip: noFixtures }, () => {
  const flags = [
    [{ lenientArguments: true }, ['--lenient-arguments']],
    [{ strictSseEnd: true }, ['--strict-sse-end']],
  ]
  for (const file of RECORDINGS.filter((_, i) => i % 4 === 0)) {
    const data = fs.readFileSync(file)
    for (const [options, args] of flags) {
      const cli = cliLines(['accumulate', '--events', ...args], data).lines
      assert.deepEqual(runPipeline(pieces(data, 3), options).events, cli, `${file} ${args}`)
    }
    const detected = runPipeline([data])
    const provider = detected.events.find((e) => e.type === 'message_start')?.provider
    if (provider) {
      const forced = runPipeline(pieces(data, 4), { provider })
      assert.deepEqual(forced.events, detected.events)
    }
  }
})

test('an unknown provider is a TypeError-like error naming the providers', () => {
  assert.throws(() => new llmstream.Pipeline({ provider: 'nope' }), /auto, openai-chat/)
})

test('events() over fetch from a local server streaming the recordings', { skip: noFixtures }, async () => {
  const chosen = RECORDINGS.filter((_, i) => i % 3 === 0)
  const server = http.createServer((req, res) => {
    const index = Number(new URL(req.url, 'http://x').searchParams.get('i'))
    const data = fs.readFileSync(chosen[index])
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    const next = rng(index + 1)
    let at = 0
    const write = () => {
      if (at >= data.length) return res.end()
      const step = 1 + Math.floor(next() * 200)
      res.write(data.subarray(at, at + step))
      at += step
      setImmediate(write)
    }
    write()
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  try {
    for (let i = 0; i < chosen.length; i++) {
      const response = await fetch(`http://127.0.0.1:${port}/?i=${i}`)
      assert.equal(response.status, 200)
      const got = await collect(llmstream.events(response.body))
      assert.deepEqual(got, cliOf(chosen[i]).events, chosen[i])
    }
  } finally {
    server.close()
  }
})
