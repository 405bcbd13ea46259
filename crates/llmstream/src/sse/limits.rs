//! Bounds on what one line and one event may hold, so that a hostile or
//! broken server cannot make the decoder allocate without end.

/// Size limits of a [`Decoder`](super::Decoder). Exceeding one is an
/// [`Error`](super::Error), never an unbounded allocation.
///
/// The defaults are generous on purpose: image-generation APIs stream a
/// whole base64 image as one `data` line, several MiB long. With them the
/// decoder holds at most about 48 MiB (one line plus one event's data) on
/// top of the piece it is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Limits {
    /// Most bytes in one line, line ending excluded (after the leading BOM
    /// is stripped). Default [`Limits::DEFAULT_MAX_LINE_BYTES`] (16 MiB).
    pub max_line_bytes: usize,
    /// Most bytes of one event's data: the input bytes of its `data`
    /// values plus one per LF that joins them (before UTF-8 decoding, which
    /// may turn one invalid byte into the three of U+FFFD). Default
    /// [`Limits::DEFAULT_MAX_EVENT_DATA_BYTES`] (32 MiB).
    pub max_event_data_bytes: usize,
}

impl Limits {
    /// Default for [`Limits::max_line_bytes`]: 16 MiB.
    pub const DEFAULT_MAX_LINE_BYTES: usize = 16 << 20;
    /// Default for [`Limits::max_event_data_bytes`]: 32 MiB.
    pub const DEFAULT_MAX_EVENT_DATA_BYTES: usize = 32 << 20;

    /// The default limits.
    pub const fn new() -> Self {
        Limits {
            max_line_bytes: Self::DEFAULT_MAX_LINE_BYTES,
            max_event_data_bytes: Self::DEFAULT_MAX_EVENT_DATA_BYTES,
        }
    }

    /// These limits with another line limit.
    pub const fn with_max_line_bytes(mut self, bytes: usize) -> Self {
        self.max_line_bytes = bytes;
        self
    }

    /// These limits with another event data limit.
    pub const fn with_max_event_data_bytes(mut self, bytes: usize) -> Self {
        self.max_event_data_bytes = bytes;
        self
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self::new()
    }
}
