'use strict'
// Shared by the tests: where the shared fixtures and the CLI binary are,
// how to run the CLI, and how to cut an input into seeded random pieces.

const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const REPO = path.resolve(__dirname, '..', '..', '..')
const FIXTURES = path.resolve(REPO, '..', 'shared', 'fixtures')
const CLI = path.join(REPO, 'target', 'release', 'llmstream')

/** A folder of the shared fixtures, or null when it is absent (the tests
 * that need it are then skipped, and say so). */
function fixtures(...parts) {
  const dir = path.join(FIXTURES, ...parts)
  return fs.existsSync(dir) && fs.statSync(dir).isDirectory() ? dir : null
}

/** Every file under `dir`, sorted, whose name ends in one of `suffixes`. */
function filesUnder(dir, suffixes) {
  const out = []
  const walk = (d) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (suffixes.some((s) => entry.name.endsWith(s))) out.push(full)
    }
  }
  if (dir) walk(dir)
  return out.sort()
}

/** The provider recordings of providers/ and providers_more/. */
function recordings() {
  return ['providers', 'providers_more'].flatMap((folder) =>
    filesUnder(fixtures(folder), ['.sse', '.bin', '.txt']),
  )
}

/** The release CLI, built when missing. */
function cliBinary() {
  if (!fs.existsSync(CLI)) {
    const built = spawnSync('cargo', ['build', '--release', '-p', 'llmstream-cli'], {
      cwd: REPO,
      stdio: 'inherit',
    })
    if (built.status !== 0) throw new Error('cargo build of the CLI failed')
  }
  return CLI
}

/** The exit code and the JSON lines the CLI prints for `data`. */
function cliLines(args, data) {
  const done = spawnSync(cliBinary(), args, { input: data, maxBuffer: 1 << 30 })
  const lines = done.stdout
    .toString('utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line))
  return { code: done.status, lines }
}

/** A seeded generator of numbers in [0, 1) (mulberry32). */
function rng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** `data` cut into pieces of 1 to `most` bytes chosen by a seeded
 * generator (cuts fall anywhere, inside a UTF-8 sequence too). */
function pieces(data, seed, most = 16) {
  const next = rng(seed)
  const out = []
  for (let at = 0; at < data.length; ) {
    const step = 1 + Math.floor(next() * most)
    out.push(data.subarray(at, at + step))
    at += step
  }
  return out
}

/** A random JSON-able value: nested objects and arrays, strings with
 * escapes and characters of every UTF-8 length, numbers of every form. */
function randomValue(next, depth = 0) {
  const pick = Math.floor(next() * (depth > 3 ? 5 : 7))
  switch (pick) {
    case 0:
      return null
    case 1:
      return next() < 0.5
    case 2: {
      const forms = [
        () => Math.floor(next() * 2000) - 1000,
        () => (next() - 0.5) * 1e6,
        () => next() * 1e-7,
        () => Number.MAX_SAFE_INTEGER - Math.floor(next() * 10),
        () => 0,
      ]
      return forms[Math.floor(next() * forms.length)]()
    }
    case 3:
    case 4: {
      const alphabet = ['a', 'b', ' ', '"', '\\', '\n', '\t', '\u0001', 'é', 'ß', '中', '文', '😀', '\u2028', '/']
      let s = ''
      const len = Math.floor(next() * 24)
      for (let i = 0; i < len; i++) s += alphabet[Math.floor(next() * alphabet.length)]
      return s
    }
    case 5: {
      const len = Math.floor(next() * 5)
      return Array.from({ length: len }, () => randomValue(next, depth + 1))
    }
    default: {
      const out = {}
      const len = Math.floor(next() * 5)
      for (let i = 0; i < len; i++) out[`k${Math.floor(next() * 8)}é`] = randomValue(next, depth + 1)
      return out
    }
  }
}

module.exports = {
  REPO,
  FIXTURES,
  fixtures,
  filesUnder,
  recordings,
  cliBinary,
  cliLines,
  rng,
  pieces,
  randomValue,
}
