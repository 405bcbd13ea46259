'use strict'
// The llmstream package: the native addon's stages (llmstream.node, built
// by `npm install` in this folder), plus what is JavaScript's own: the
// live snapshot object of `JsonParser`, `SnapshotChunker` taking values,
// and `events()` over an async iterable or a `ReadableStream`.

const native = require('./llmstream.node')

const { parse, repair, SseDecoder, Pipeline, ArgumentStreams, ActionStream } = native

/** An incremental JSON parser: feed pieces cut anywhere, get events and a
 * live snapshot. */
class JsonParser {
  #native
  #live = undefined

  constructor(options) {
    this.#native = new native.NativeJsonParser(options)
  }

  /** Feeds a piece (`Uint8Array` or `string`); returns the events it
   * completed. */
  feed(piece) {
    return this.#native.feed(piece)
  }

  /** The end of input: the last events. */
  finish() {
    return this.#native.finish()
  }

  /** The live partial value, or `null` before any value began. The same
   * objects are returned from read to read and updated in place: a read
   * converts only what the document gained (plus the open string). Do not
   * modify them; `snapshotCopy()` gives a copy. */
  get snapshot() {
    this.#live = this.#native.snapshotInto(this.#live)
    return this.#live
  }

  /** The live partial value converted afresh, or `null`. */
  snapshotCopy() {
    return this.#native.snapshotCopy()
  }

  /** The bytes fed so far. */
  get bytesFed() {
    return this.#native.bytesFed
  }
}

/** Turns complete snapshots (JSON text, or values written with
 * `JSON.stringify`) into chunks whose concatenation is the final JSON
 * text. */
class SnapshotChunker {
  #native = new native.NativeSnapshotChunker()

  feed(snapshot) {
    const text =
      typeof snapshot === 'string' || snapshot instanceof Uint8Array
        ? snapshot
        : JSON.stringify(snapshot)
    return this.#native.feed(text)
  }

  finish() {
    return this.#native.finish()
  }

  get snapshots() {
    return this.#native.snapshots
  }
}

/** The chunks of `source`: an async iterable (a Node stream, an async
 * generator) as it is, a `ReadableStream` through its reader. */
async function* chunksOf(source) {
  if (source != null && typeof source[Symbol.asyncIterator] === 'function') {
    yield* source
  } else if (source != null && typeof source.getReader === 'function') {
    const reader = source.getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return
        yield value
      }
    } finally {
      reader.releaseLock()
    }
  } else if (source != null && typeof source[Symbol.iterator] === 'function') {
    yield* source
  } else {
    throw new TypeError('events() takes an async iterable, a ReadableStream or an iterable')
  }
}

/** The normalized events of a whole streaming body (`fetch`'s
 * `response.body`, a Node stream), as they complete. */
async function* events(source, options) {
  const pipeline = new Pipeline(options)
  for await (const chunk of chunksOf(source)) {
    yield* pipeline.feed(chunk)
  }
  yield* pipeline.finish()
}

// One assignment per name, so that an ES module's `import { … }` finds
// them (Node reads a CommonJS module's names from assignments like these).
exports.version = native.version()
exports.parse = parse
exports.repair = repair
exports.JsonParser = JsonParser
exports.SseDecoder = SseDecoder
exports.Pipeline = Pipeline
exports.ArgumentStreams = ArgumentStreams
exports.ActionStream = ActionStream
exports.SnapshotChunker = SnapshotChunker
exports.events = events
