//! `Pipeline`: a provider's raw streaming body to normalized events and the
//! message, in the forms of `llmstream accumulate` (`StreamEvent::to_value`,
//! `Message::to_value`).

use llmstream::providers::{Pipeline as Inner, Provider};
use napi::bindgen_prelude::*;
use napi::{Env, Unknown};
use napi_derive::napi;

use crate::errors::type_error;
use crate::input::{bytes_of, Piece};
use crate::packed::pack_all;
use crate::sse::sse_error;
use crate::value::{to_js, Integers};

/// The options of `Pipeline`.
#[napi(object)]
#[derive(Default)]
pub struct PipelineOptions {
    /// `"auto"` (detected from the first payload), `"openai-chat"`,
    /// `"openai-responses"`, `"anthropic"` or `"gemini"`.
    pub provider: Option<String>,
    /// Tool-call arguments that are not JSON are read in lenient mode
    /// (their `arguments_error` kind is `repaired`).
    pub lenient_arguments: Option<bool>,
    /// An SSE event the body ends inside (no closing blank line) is
    /// discarded, as the standard says, even when its data is a whole
    /// payload.
    pub strict_sse_end: Option<bool>,
}

/// The native pipeline; the package's `Pipeline` wraps it and unpacks the
/// events.
#[napi(js_name = "NativePipeline")]
pub struct NativePipeline {
    inner: Inner,
}

#[napi]
impl NativePipeline {
    #[napi(constructor, catch_unwind)]
    pub fn new(options: Option<PipelineOptions>) -> Result<Self> {
        let options = options.unwrap_or_default();
        let provider = options.provider.as_deref().unwrap_or("auto");
        let inner = match provider.replace('_', "-").as_str() {
            "auto" => Inner::new(),
            name => match Provider::ALL.iter().find(|p| p.name() == name) {
                Some(p) => Inner::with_provider(*p),
                None => {
                    return Err(type_error(format!(
                        "unknown provider {provider:?}: auto, openai-chat, openai-responses, anthropic or gemini"
                    )))
                }
            },
        };
        Ok(NativePipeline {
            inner: inner
                .lenient_arguments(options.lenient_arguments.unwrap_or(false))
                .read_unterminated_event(!options.strict_sse_end.unwrap_or(false)),
        })
    }

    /// Feeds a piece of the body; returns the normalized events it
    /// completed (`accumulate --events` forms), packed. Throws an
    /// `SseError` past an SSE limit.
    #[napi(catch_unwind)]
    pub fn feed<'env>(&mut self, env: &'env Env, piece: Piece) -> Result<Array<'env>> {
        let fed = self.inner.feed(&bytes_of(&piece));
        let events = self.drain(env)?;
        fed.map_err(|e| sse_error(env, &e.0))?;
        Ok(events)
    }

    /// The end of the body: the last events, packed.
    #[napi(catch_unwind)]
    pub fn finish<'env>(&mut self, env: &'env Env) -> Result<Array<'env>> {
        let finished = self.inner.finish();
        let events = self.drain(env)?;
        finished.map_err(|e| sse_error(env, &e.0))?;
        Ok(events)
    }

    /// The message so far (`accumulate` form), or `null` before the first
    /// provider payload.
    #[napi(getter, ts_return_type = "Message | null", catch_unwind)]
    pub fn message<'env>(&self, env: &'env Env) -> Result<Unknown<'env>> {
        match self.inner.message() {
            Some(message) => to_js(env, &message.to_value(), Integers::Doubles),
            None => Null.into_unknown(env),
        }
    }

    /// The provider read (named or detected), or `null` before detection.
    #[napi(getter, catch_unwind)]
    pub fn provider(&self) -> Option<&'static str> {
        self.inner.provider().map(|p| p.name())
    }
}

impl NativePipeline {
    fn drain<'env>(&mut self, env: &'env Env) -> Result<Array<'env>> {
        let events = std::iter::from_fn(|| self.inner.next_event());
        pack_all(env, events.map(|event| event.to_value()))
    }
}
