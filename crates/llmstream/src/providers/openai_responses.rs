//! OpenAI Responses streams (placeholder: payloads are not read yet).

use super::{Accumulator as Accumulate, MessageBuilder, Provider};
use crate::json::Value;

/// Folds OpenAI Responses payloads into a message.
#[derive(Debug, Clone)]
pub struct Accumulator {
    builder: MessageBuilder,
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator::new()
    }
}

impl Accumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Accumulator {
            builder: MessageBuilder::new(Provider::OpenAiResponses),
        }
    }
}

impl Accumulate for Accumulator {
    fn push(&mut self, _event_type: &str, _payload: &Value) {}

    fn builder(&self) -> &MessageBuilder {
        &self.builder
    }

    fn builder_mut(&mut self) -> &mut MessageBuilder {
        &mut self.builder
    }
}
