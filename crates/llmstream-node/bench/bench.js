'use strict'
// The Node.js package's speed against the readers Node programs use.
//
// Reads the inputs the Rust benchmarks and cli-bench write (`bench/run.sh`
// makes them), so the Node figures are on the same bytes as the Rust and
// Python ones in BENCHMARKS.md:
//
// - parse: the 1 MiB text-heavy document (`text_args_1048576.json`) read
//   whole by `llmstream.parse` (from a Buffer and from a string) and by
//   `JSON.parse` (from a string, and from the Buffer with its decoding by
//   `buffer.toString()` included).
// - snapshot: the value read after every 16-byte piece (Buffers, cut before
//   timing). llmstream's `JsonParser({ events: false })`: `feed` and
//   `.snapshot` per piece, against partial-json as openai-node uses it: the
//   text so far grown by the piece and parsed again with `parse(text)`
//   (Allow.ALL). 1 KiB to 16 MiB; a partial-json cell predicted to take
//   over `--cap` seconds a run is skipped.
// - sse: the 21 MB OpenAI-shaped `chat.sse` of cli-bench in 64 KiB pieces:
//   `SseDecoder` `feed`/`finish` on the Buffers, against eventsource-parser's
//   `createParser({ onEvent }).feed(string)`, its time including a streaming
//   `TextDecoder` decode of each piece (it takes strings, as a client must
//   make them). Both count the events and the total length of their data.
//
// - pipeline: the same `chat.sse` through `Pipeline` (every normalized
//   event as an object, and the message), against the least a client
//   does: eventsource-parser, `JSON.parse` of each payload and the answer's
//   deltas joined. Both must read the same answer text.
//
// Every reader is checked for the same result before it is timed; a
// difference exits non-zero. Each cell is the median of three samples, each
// repeating the job for at least `--min` seconds (one run when a run takes
// longer). Ratios are within this one run. Timing is printed, never
// asserted.
//
//   node --expose-gc bench/bench.js --inputs DIR [--sse FILE] [--csv OUT]
//        [--only parse,snapshot,sse,pipeline] [--min S] [--cap S]

const fs = require('node:fs')
const path = require('node:path')
const { isDeepStrictEqual } = require('node:util')

const llmstream = require('..')

function usage(message) {
  console.error(`bench.js: ${message}`)
  console.error('usage: node bench/bench.js --inputs DIR [--sse FILE] [--csv OUT] [--only parse,snapshot,sse,pipeline] [--min S] [--cap S]')
  process.exit(2)
}

function args(argv) {
  const out = { inputs: null, sse: null, csv: null, only: 'parse,snapshot,sse,pipeline', min: 0.2, cap: 60 }
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]
    const value = argv[i + 1]
    if (!['--inputs', '--sse', '--csv', '--only', '--min', '--cap'].includes(name)) usage(`unknown argument ${name}`)
    if (value === undefined) usage(`${name} needs a value`)
    out[name.slice(2)] = value
    i++
  }
  if (!out.inputs) usage('--inputs is required')
  out.min = Number(out.min)
  out.cap = Number(out.cap)
  out.only = new Set(out.only.split(','))
  return out
}

function collect() {
  if (typeof global.gc === 'function') global.gc()
}

function now() {
  return Number(process.hrtime.bigint()) / 1e9
}

/** Seconds per run of `job`: the median of three samples. */
function measure(job, minSeconds) {
  collect()
  let start = now()
  job()
  const first = now() - start
  if (first >= minSeconds) return first
  const reps = Math.max(1, Math.floor(minSeconds / Math.max(first, 1e-9)) + 1)
  const samples = []
  for (let s = 0; s < 3; s++) {
    collect()
    start = now()
    for (let r = 0; r < reps; r++) job()
    samples.push((now() - start) / reps)
  }
  samples.sort((a, b) => a - b)
  return samples[1]
}

function fail(message) {
  console.error(`bench.js: ${message}`)
  process.exit(1)
}

function read(inputs, name) {
  return fs.readFileSync(path.join(inputs, name))
}

const ms = (seconds) => `${(seconds * 1e3).toFixed(2)} ms`
const fmt = (x, digits) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

function benchParse(inputs, minSeconds) {
  const buf = read(inputs, 'text_args_1048576.json')
  const str = buf.toString()
  const expected = JSON.parse(str)
  let sink
  const readers = [
    ['llmstream.parse(Buffer)', () => (sink = llmstream.parse(buf))],
    ['llmstream.parse(string)', () => (sink = llmstream.parse(str))],
    ['JSON.parse(string)', () => (sink = JSON.parse(str))],
    ['JSON.parse(buf.toString())', () => (sink = JSON.parse(buf.toString()))],
  ]
  console.log(`parse: ${fmt(buf.length, 0)} bytes of text-heavy tool arguments, whole, into JavaScript values`)
  const times = new Map()
  for (const [name, job] of readers) {
    if (!isDeepStrictEqual(job(), expected)) fail(`${name} read the document differently from JSON.parse`)
    times.set(name, measure(job, minSeconds))
  }
  void sink
  const base = times.get('JSON.parse(string)')
  for (const [name, seconds] of times) {
    const mbs = buf.length / seconds / 1e6
    console.log(`  ${name.padEnd(28)} ${ms(seconds).padStart(12)}  ${fmt(mbs, 0).padStart(6)} MB/s  ${(seconds / base).toFixed(2).padStart(6)}x JSON.parse(string)'s time`)
  }
}

function llmstreamSnapshots(pieces) {
  const parser = new llmstream.JsonParser({ events: false })
  for (const piece of pieces) {
    parser.feed(piece)
    parser.snapshot
  }
  parser.finish()
  return parser.snapshot
}

// What openai-node does per delta of a tool call's arguments: the text so
// far grows by the delta and is parsed again (its vendored partial-json
// parser, Allow.ALL by default).
function partialJsonSnapshots(pieces, partialParse) {
  let accumulated = ''
  let value
  for (const piece of pieces) {
    accumulated += piece
    value = partialParse(accumulated)
  }
  return value
}

const SIZES = [1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20]

function benchSnapshot(inputs, minSeconds, cap, rows) {
  const { parse: partialParse } = require('partial-json')
  const piece = 16
  console.log(`snapshot: the value read after every ${piece}-byte piece, ns per byte of the document`)
  console.log(`  ${'bytes'.padStart(10)} ${'llmstream'.padStart(12)} ${'partial-json'.padStart(14)} ${'ratio'.padStart(9)}`)
  let last = null
  for (const size of SIZES) {
    const file = `text_args_${size}.json`
    if (!fs.existsSync(path.join(inputs, file))) {
      console.log(`  ${fmt(size, 0).padStart(10)} (no ${file})`)
      continue
    }
    const doc = read(inputs, file)
    const pieces = []
    for (let i = 0; i < doc.length; i += piece) pieces.push(doc.subarray(i, i + piece))
    // The peer's pieces: the text of each 16 bytes, decoded with a cut
    // character held for the next piece, as a client decoding the stream.
    const decoder = new TextDecoder()
    const texts = pieces.map((p) => decoder.decode(p, { stream: true }))
    texts.push(decoder.decode())
    const expected = JSON.parse(doc.toString())
    if (!isDeepStrictEqual(llmstreamSnapshots(pieces), expected)) fail(`llmstream's last snapshot at ${size} bytes is not the document`)
    const ours = measure(() => llmstreamSnapshots(pieces), minSeconds)
    rows.push(['node', piece, size, (ours * 1e9) / size, ours])
    let theirs = null
    const predicted = last === null ? null : last[1] * (size / last[0]) ** 2
    if (predicted === null || predicted <= cap) {
      if (!isDeepStrictEqual(partialJsonSnapshots(texts, partialParse), expected)) fail(`partial-json's last re-parse at ${size} bytes is not the document`)
      theirs = measure(() => partialJsonSnapshots(texts, partialParse), minSeconds)
      last = [size, theirs]
      rows.push(['node-partial-json', piece, size, (theirs * 1e9) / size, theirs])
    }
    const ns = (s) => fmt((s * 1e9) / size, 1)
    if (theirs === null) {
      console.log(`  ${fmt(size, 0).padStart(10)} ${ns(ours).padStart(12)} ${'skipped'.padStart(14)} ${''.padStart(9)}  (predicted ${fmt(predicted, 0)} s a run)`)
    } else {
      console.log(`  ${fmt(size, 0).padStart(10)} ${ns(ours).padStart(12)} ${ns(theirs).padStart(14)} ${(fmt(theirs / ours, 1) + 'x').padStart(9)}`)
    }
  }
}

function llmstreamSse(pieces) {
  const decoder = new llmstream.SseDecoder()
  let events = 0
  let data = 0
  const count = (items) => {
    for (const item of items) {
      if (item.data !== undefined) {
        events++
        data += item.data.length
      }
    }
  }
  for (const piece of pieces) count(decoder.feed(piece))
  count(decoder.finish())
  return { events, data }
}

function eventsourceSse(pieces, createParser) {
  let events = 0
  let data = 0
  const parser = createParser({
    onEvent(event) {
      events++
      data += event.data.length
    },
  })
  const decoder = new TextDecoder()
  for (const piece of pieces) parser.feed(decoder.decode(piece, { stream: true }))
  const rest = decoder.decode()
  if (rest) parser.feed(rest)
  // The standard dispatches an event at a blank line only: a body that ends
  // on one has nothing left to flush.
  return { events, data }
}

/** A streaming body read whole and cut into 64 KiB pieces. */
function bodyInPieces(file) {
  const body = fs.readFileSync(file)
  const size = 64 << 10
  const pieces = []
  for (let i = 0; i < body.length; i += size) pieces.push(body.subarray(i, i + size))
  return { body, pieces }
}

function benchSse(file, minSeconds) {
  const { createParser } = require('eventsource-parser')
  const { body, pieces } = bodyInPieces(file)
  const ours = llmstreamSse(pieces)
  const theirs = eventsourceSse(pieces, createParser)
  if (ours.events !== theirs.events || ours.data !== theirs.data) {
    fail(`the SSE readers differ: llmstream ${ours.events} events, ${ours.data} data; eventsource-parser ${theirs.events} events, ${theirs.data} data`)
  }
  console.log(`sse: ${path.basename(file)}, ${fmt(body.length, 0)} bytes, ${fmt(ours.events, 0)} events, ${fmt(ours.data, 0)} UTF-16 units of data, ${fmt(pieces.length, 0)} pieces of 65,536 bytes`)
  const t1 = measure(() => llmstreamSse(pieces), minSeconds)
  const t2 = measure(() => eventsourceSse(pieces, createParser), minSeconds)
  const mbs = (s) => fmt(body.length / s / 1e6, 0)
  console.log(`  ${'llmstream SseDecoder feed(Buffer)'.padEnd(50)} ${ms(t1).padStart(12)}  ${mbs(t1).padStart(6)} MB/s`)
  console.log(`  ${'eventsource-parser (TextDecoder + feed(string))'.padEnd(50)} ${ms(t2).padStart(12)}  ${mbs(t2).padStart(6)} MB/s  ${(t2 / t1).toFixed(2).padStart(6)}x llmstream's time`)
}

/** The answer text of an OpenAI Chat stream by llmstream's `Pipeline`. */
function llmstreamPipeline(pieces) {
  const pipeline = new llmstream.Pipeline()
  let events = 0
  for (const piece of pieces) events += pipeline.feed(piece).length
  events += pipeline.finish().length
  return { events, text: pipeline.message.choices[0].text }
}

/** The same by what a JavaScript client does at the least: SSE events
 * decoded by eventsource-parser (a streaming `TextDecoder` first),
 * `JSON.parse` of each payload, the answer's deltas joined. */
function eventsourcePipeline(pieces, createParser) {
  let text = ''
  const parser = createParser({
    onEvent(event) {
      if (event.data === '[DONE]') return
      const delta = JSON.parse(event.data).choices?.[0]?.delta
      if (typeof delta?.content === 'string') text += delta.content
    },
  })
  const decoder = new TextDecoder()
  for (const piece of pieces) parser.feed(decoder.decode(piece, { stream: true }))
  return { text }
}

function benchPipeline(file, minSeconds) {
  const { createParser } = require('eventsource-parser')
  const { body, pieces } = bodyInPieces(file)
  const ours = llmstreamPipeline(pieces)
  const theirs = eventsourcePipeline(pieces, createParser)
  if (ours.text !== theirs.text) fail('the pipelines read different answer texts')
  console.log(`pipeline: ${path.basename(file)}, ${fmt(ours.events, 0)} normalized events, an answer of ${fmt(ours.text.length, 0)} UTF-16 units`)
  const t1 = measure(() => llmstreamPipeline(pieces), minSeconds)
  const t2 = measure(() => eventsourcePipeline(pieces, createParser), minSeconds)
  const mbs = (s) => fmt(body.length / s / 1e6, 0)
  console.log(`  ${'llmstream Pipeline (events and the message)'.padEnd(50)} ${ms(t1).padStart(12)}  ${mbs(t1).padStart(6)} MB/s`)
  console.log(`  ${'eventsource-parser + JSON.parse (the text only)'.padEnd(50)} ${ms(t2).padStart(12)}  ${mbs(t2).padStart(6)} MB/s  ${(t2 / t1).toFixed(2).padStart(6)}x llmstream's time`)
}

function main() {
  const opts = args(process.argv.slice(2))
  const peers = ['partial-json', 'eventsource-parser'].map((name) => {
    const file = path.join(__dirname, '..', 'node_modules', name, 'package.json')
    return `${name} ${JSON.parse(fs.readFileSync(file, 'utf8')).version}`
  })
  console.log(`llmstream ${llmstream.version}, Node ${process.versions.node} (V8 ${process.versions.v8}), ${peers.join(', ')}, gc between samples: ${typeof global.gc === 'function' ? 'yes' : 'no (run with --expose-gc)'}`)
  if (opts.only.has('parse')) benchParse(opts.inputs, opts.min)
  const rows = []
  if (opts.only.has('snapshot')) benchSnapshot(opts.inputs, opts.min, opts.cap, rows)
  if (opts.only.has('sse')) {
    const file = opts.sse || path.join(opts.inputs, 'chat.sse')
    if (!fs.existsSync(file)) fail(`no ${file} (cli-bench-inputs writes it; give it with --sse)`)
    benchSse(file, opts.min)
  }
  if (opts.only.has('pipeline')) {
    const file = opts.sse || path.join(opts.inputs, 'chat.sse')
    if (!fs.existsSync(file)) fail(`no ${file} (cli-bench-inputs writes it; give it with --sse)`)
    benchPipeline(file, opts.min)
  }
  if (opts.csv && rows.length) {
    const lines = rows.map(([impl, piece, size, nsPerByte, seconds]) => `${impl},${piece},${size},${nsPerByte.toFixed(6)},${seconds.toFixed(9)}\n`)
    fs.appendFileSync(opts.csv, lines.join(''))
  }
}

main()
