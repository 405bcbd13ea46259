'use strict'
// The llmstream package: the native addon's stages (llmstream.node, built
// by `npm install` in this folder), plus what is JavaScript's own: the
// objects of a feed's events and items built from their packed form (a
// JavaScript loop makes them far faster than N-API calls do), the live
// snapshot object of `JsonParser`, `SnapshotChunker` taking values, and
// `events()` over an async iterable or a `ReadableStream`.

const native = require('./llmstream.node')

const { parse, repair } = native

/** Normalizes a provider's streaming body (SSE, JSON Lines or a JSON array
 * of payloads) fed in pieces cut anywhere; options `{provider,
 * lenientArguments, strictSseEnd}`. */
class Pipeline {
  #native

  constructor(options) {
    this.#native = new native.NativePipeline(options)
  }

  /** Feeds a piece of the body; returns the normalized events it
   * completed. */
  feed(piece) {
    return unpackList(this.#native.feed(piece))
  }

  /** The end of the body: the last events. */
  finish() {
    return unpackList(this.#native.finish())
  }

  /** The message so far, or `null` before the first provider payload. */
  get message() {
    return this.#native.message
  }

  /** The provider named or detected, or `null` before detection. */
  get provider() {
    return this.#native.provider
  }
}

/** Per-call streams of tool-call arguments, keyed by call id. */
class ArgumentStreams {
  #native = new native.NativeArgumentStreams()

  feed(toolId, fragment) {
    return unpackList(this.#native.feed(toolId, fragment))
  }

  feedAccumulated(toolId, text) {
    return unpackList(this.#native.feedAccumulated(toolId, text))
  }

  finish(toolId) {
    return unpackList(this.#native.finish(toolId))
  }

  get ids() {
    return this.#native.ids
  }
}

/** JSON action objects (tool calls) in model text, possibly inside
 * ```json fences. */
class ActionStream {
  #native = new native.NativeActionStream()

  feed(text) {
    return unpackList(this.#native.feed(text))
  }

  finish() {
    return unpackList(this.#native.finish())
  }
}

/** Values from their packed form (src/packed.rs): their ASCII strings and
 * keys in one string, the others as UTF-8 bytes, a list of codes
 * (each followed by its operands: 0 null, 1 false, 2 true, 3 a number,
 * 4 an ASCII string and 10 another (where it ends in its text), 5 an
 * array (its length, then its items), 6 an object (its size, then per
 * member its key and value), 8 an ASCII key not seen before and 11
 * another (where it ends), 9 a key seen before (its number)), and how
 * many values there are. */
function unpackList([ascii, textBytes, ops, count]) {
  const values = []
  if (count === 0) return values
  const reader = {
    ascii,
    text: textBytes.length === 0 ? '' : utf8.decode(textBytes, { stream: true }),
    ops,
    i: 0,
    inAscii: 0,
    inText: 0,
    keys: [],
  }
  for (let n = 0; n < count; n++) values.push(readValue(reader))
  return values
}

/** The string a code's operand ends, from the ASCII or the other text. */
function readText(reader, code) {
  const end = reader.ops[reader.i++]
  if (code === 10 || code === 11) {
    const s = reader.text.slice(reader.inText, end)
    reader.inText = end
    return s
  }
  const s = reader.ascii.slice(reader.inAscii, end)
  reader.inAscii = end
  return s
}

function readValue(reader) {
  const ops = reader.ops
  const code = ops[reader.i++]
  switch (code) {
    case 0:
      return null
    case 1:
      return false
    case 2:
      return true
    case 3:
      return ops[reader.i++]
    case 4:
    case 10:
      return readText(reader, code)
    case 5: {
      const n = ops[reader.i++]
      const array = []
      for (let k = 0; k < n; k++) array.push(readValue(reader))
      return array
    }
    default: {
      const n = ops[reader.i++]
      const object = {}
      for (let k = 0; k < n; k++) {
        const keyCode = ops[reader.i++]
        let key
        if (keyCode === 9) {
          key = reader.keys[ops[reader.i++]]
        } else {
          key = readText(reader, keyCode)
          reader.keys.push(key)
        }
        const member = readValue(reader)
        if (key === '__proto__') defineOwn(object, key, member)
        else object[key] = member
      }
      return object
    }
  }
}

/** Sets `object[key]` as an own data property, `__proto__` included (an
 * assignment to that key would set the prototype instead). */
function defineOwn(object, key, value) {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true })
}

/** An incremental JSON parser: feed pieces cut anywhere, get events and a
 * live snapshot. */
class JsonParser {
  #native
  #live = undefined
  /** Strings the native side saw grow (container, key, added text), then
   * where the open string is (container, key). */
  #appends = []
  /** The container of the string at the end of the open path, and its key
   * (`undefined` when the path does not end in a string). */
  #holder = undefined
  #key = undefined

  constructor(options) {
    this.#native = new native.NativeJsonParser(options)
  }

  /** Feeds a piece (`Uint8Array` or `string`); returns the events it
   * completed. */
  feed(piece) {
    return this.#native.feed(piece) ?? []
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
    if (this.#holder !== undefined) {
      // Only the open string grew (or nothing changed): append it.
      const added = this.#native.openTextAdded()
      if (added !== null) {
        if (added !== '') appendText(this.#holder, this.#key, added)
        return this.#live
      }
    }
    const appends = this.#appends
    this.#live = this.#native.snapshotInto(this.#live, appends)
    const triples = appends.length - (appends.length % 3)
    for (let i = 0; i < triples; i += 3) appendText(appends[i], appends[i + 1], appends[i + 2])
    this.#holder = appends.length > triples ? appends[triples] : undefined
    this.#key = appends.length > triples ? appends[triples + 1] : undefined
    appends.length = 0
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

/** Decodes a `text/event-stream` body fed in pieces cut anywhere. */
class SseDecoder {
  #native = new native.NativeSseDecoder()

  /** Feeds a piece; returns the items it completed: `{event, data, id}`
   * per dispatched event, `{retry}` per valid retry field. */
  feed(piece) {
    return unpackSse(this.#native.feed(piece))
  }

  /** The end of the body: an event not closed by a blank line is
   * discarded, as the standard says. */
  finish() {
    return unpackSse(this.#native.finish())
  }
}

// `stream: true` takes Node's fast UTF-8 decoder (the one-shot call takes
// V8's, three times slower where the text is not ASCII); a packed text
// always ends with a whole character, so nothing is ever left pending.
const utf8 = new TextDecoder()

/** The items of a feed from their packed form (src/sse.rs): the fields'
 * text in two parts, the ASCII fields as a string and the others as
 * UTF-8, and where each field ends. */
function unpackSse([ascii, textBytes, marks]) {
  const items = []
  if (marks.length === 0) return items
  const text = textBytes.length === 0 ? '' : utf8.decode(textBytes, { stream: true })
  // Where the next field starts in each string.
  let inAscii = 0
  let inText = 0
  const fields = [undefined, undefined, undefined]
  for (let i = 0; i < marks.length; ) {
    if (marks[i] === 2) {
      items.push({ retry: marks[i + 1] })
      i += 2
      continue
    }
    for (let f = 0; f < 3; f++, i += 2) {
      const where = marks[i]
      const end = marks[i + 1]
      if (where === 0) {
        fields[f] = ascii.slice(inAscii, end)
        inAscii = end
      } else if (where === 1) {
        fields[f] = text.slice(inText, end)
        inText = end
      }
      // 3: the same text as this field of the event before, still there.
    }
    items.push({ event: fields[0], data: fields[1], id: fields[2] })
  }
  return items
}

/** Extends the string `holder[key]` by `added`: a concatenation, which
 * costs what was added (a `__proto__` member is an own property: defined,
 * not assigned). */
function appendText(holder, key, added) {
  if (key === '__proto__') {
    defineOwn(holder, key, holder[key] + added)
  } else {
    holder[key] += added
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
