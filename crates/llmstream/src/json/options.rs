//! What the parser accepts and how much of it.

/// What the parser keeps of the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Keep {
    /// Events only.
    Nothing,
    /// The live partial value, current after every piece.
    Live,
    /// The value once it completes (see [`Options::final_value`]).
    Final,
}

/// Parser options. The default is strict RFC 8259 with the default
/// [`Limits`]; every leniency is opt-in.
///
/// ```
/// use llmstream::json::{Options, Parser};
/// let mut parser = Parser::with_options(Options::new().trailing_commas(true));
/// parser.feed(b"[1, 2,]").unwrap();
/// parser.finish().unwrap();
/// assert_eq!(parser.snapshot().unwrap().to_string(), "[1,2]");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub(crate) trailing_commas: bool,
    pub(crate) growing_numbers: bool,
    pub(crate) multiple_values: bool,
    pub(crate) keep: Keep,
    pub(crate) stop_after_value: bool,
    pub(crate) events: bool,
    pub(crate) limits: Limits,
    pub(crate) lenient: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options::new()
    }
}

impl Options {
    /// Strict RFC 8259, default limits, snapshot kept.
    pub const fn new() -> Self {
        Options {
            trailing_commas: false,
            growing_numbers: false,
            multiple_values: false,
            keep: Keep::Live,
            stop_after_value: false,
            events: true,
            limits: Limits::new(),
            lenient: false,
        }
    }

    /// Lenient mode, the one switch: what models really write is read as
    /// the value a person would read in it (JSON inside prose and code
    /// fences, other quotes, Python and JavaScript literals, comments, bare
    /// words, loose numbers, missing or extra commas and colons, quotes
    /// left inside strings, stray brackets, several values as an array;
    /// docs/LENIENT.md gives every rule). Input is never an error, and a
    /// text cut short reads as [`repair`](super::repair) reads it. The
    /// parser then reports no events: its snapshot grows as tokens
    /// complete.
    ///
    /// ```
    /// use llmstream::json::{Options, Parser};
    /// let mut parser = Parser::with_options(Options::lenient());
    /// parser.feed(b"Sure! ```json\n{'name': 'x', done: True, /* note */ n: .5,}\n```")?;
    /// parser.finish()?;
    /// assert_eq!(parser.snapshot().unwrap().to_string(), r#"{"name":"x","done":true,"n":0.5}"#);
    /// # Ok::<(), llmstream::json::Error>(())
    /// ```
    pub const fn lenient() -> Self {
        let mut options = Options::new();
        options.lenient = true;
        options.events = false;
        options
    }

    /// Accept one `,` before `]` or `}` (`[1,]`, `{"a":1,}`), as models
    /// often write.
    pub const fn trailing_commas(mut self, yes: bool) -> Self {
        self.trailing_commas = yes;
        self
    }

    /// Show a number in the snapshot while it may still grow (`[1, 12` shows
    /// `[1,12]`). This trades the monotonic guarantee for immediacy: `12` may
    /// become `123`, and `1.` is shown as `1` until a digit follows. Each
    /// piece that ends inside a number shows it afresh, at a cost of its
    /// length so far: bounded by [`Limits::max_number_bytes`] (4,096 by
    /// default), a number cut into many pieces costs up to that much more
    /// per byte; raise that limit with this option on with care.
    pub const fn growing_numbers(mut self, yes: bool) -> Self {
        self.growing_numbers = yes;
        self
    }

    /// Accept a sequence of top-level values (JSON Lines, or values simply
    /// concatenated), reported one by one. Take each completed value with
    /// [`Parser::take_completed`](super::Parser::take_completed).
    pub const fn multiple_values(mut self, yes: bool) -> Self {
        self.multiple_values = yes;
        self
    }

    /// Keep the live partial value (default: yes). Without it the parser
    /// only reports events, and does no allocation per value.
    pub const fn snapshot(mut self, yes: bool) -> Self {
        self.keep = if yes { Keep::Live } else { Keep::Nothing };
        self
    }

    /// Queue the events of each piece for
    /// [`Parser::next_event`](super::Parser::next_event) (default: yes).
    /// A caller that reads only the snapshot turns this off, so that
    /// [`Parser::feed`](super::Parser::feed) builds no events at all and
    /// nothing piles up unread.
    pub const fn events(mut self, yes: bool) -> Self {
        self.events = yes;
        self
    }

    /// Build the value for the end only (what [`parse`](super::parse)
    /// wants): each container is filled on a stack and attached to its
    /// parent when it closes, instead of each value being placed through
    /// the open path, so `snapshot()` is `None` until the value completes.
    pub(crate) const fn final_value(mut self) -> Self {
        self.keep = Keep::Final;
        self
    }

    /// Stop at the end of the top-level value instead of rejecting what
    /// follows: the rest of the piece is left unconsumed
    /// ([`Feed::consumed`](super::Feed::consumed) says how much was taken),
    /// for callers that find JSON embedded in other text.
    pub const fn stop_after_value(mut self, yes: bool) -> Self {
        self.stop_after_value = yes;
        self
    }

    /// Replace the limits.
    pub const fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
}

/// Bounds on what one parser accepts, so that hostile input cannot exhaust
/// the stack or memory. Exceeding one is an error of its own kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Arrays and objects nested inside each other. Default 128 (as
    /// serde_json). The parser never recurses, so a larger limit costs only
    /// memory; but dropping a deep [`Value`](super::Value) does recurse.
    pub max_depth: usize,
    /// Decoded bytes in one string or object key. Default 64 MiB.
    pub max_string_bytes: usize,
    /// Bytes in one number. Default 4096.
    pub max_number_bytes: usize,
    /// Bytes fed in total. Default 1 GiB.
    pub max_input_bytes: u64,
}

impl Limits {
    /// The defaults.
    pub const fn new() -> Self {
        Limits {
            max_depth: 128,
            max_string_bytes: 64 << 20,
            max_number_bytes: 4096,
            max_input_bytes: 1 << 30,
        }
    }

    /// No limits but the nesting depth, which stays at `max_depth`.
    pub const fn unlimited(max_depth: usize) -> Self {
        Limits {
            max_depth,
            max_string_bytes: usize::MAX,
            max_number_bytes: usize::MAX,
            max_input_bytes: u64::MAX,
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::new()
    }
}
