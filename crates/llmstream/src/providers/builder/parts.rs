//! The content parts of a choice: text, reasoning, refusals, raw blocks,
//! their log probabilities, citations and phases, and the final copies
//! that replace what streamed.

use super::*;

impl MessageBuilder {
    /// The next text or reasoning of `choice` starts a new content part
    /// (a new Anthropic content block, a new Responses output item).
    pub fn break_part(&mut self, choice: u64) {
        self.part_break.insert(choice, true);
    }

    pub(super) fn part_limit_reached(&mut self, choice: u64) -> bool {
        let limit = self.limits.max_parts;
        let full = self
            .message
            .choices
            .get(&choice)
            .map_or(limit == 0, |c| c.content.len() >= limit);
        if full {
            self.error(ErrorInfo::new(format!(
                "more than {limit} content parts in choice {choice}"
            )));
        }
        full
    }

    /// The latest part of `choice`, if any.
    pub(super) fn last_part(&self, choice: u64) -> Option<&Part> {
        self.message.choices.get(&choice)?.content.last()
    }

    /// Appends answer text.
    pub fn text(&mut self, choice: u64, text: &str) {
        self.append(choice, Flow::Text, text);
    }

    /// Appends reasoning text (thinking, or a reasoning summary).
    pub fn reasoning(&mut self, choice: u64, text: &str) {
        self.append(choice, Flow::Reasoning, text);
    }

    /// Appends refusal text (to the latest part if it is a refusal and no
    /// part break was asked for, as text does).
    pub(crate) fn refusal(&mut self, choice: u64, text: &str) {
        self.append(choice, Flow::Refusal, text);
    }

    /// Appends text, reasoning or refusal: to the choice's running total,
    /// to the last part when it is of the same kind (and no part break was
    /// asked for: then a part start comes first), else to a new part.
    pub(crate) fn append(&mut self, choice: u64, flow: Flow, text: &str) {
        if text.is_empty() || !self.choice_ok(choice) {
            return;
        }
        let fresh = self.part_break.remove(&choice).unwrap_or(false);
        let owned = self.last_part(choice).is_some_and(|p| flow.owns(p));
        if (fresh || !owned) && self.part_limit_reached(choice) {
            return;
        }
        if fresh && owned {
            self.emit(StreamEvent::PartStart { choice, kind: flow });
        }
        self.emit(flow_event(flow, choice, String::from(text)));
    }

    /// Sets the signature of the latest reasoning part (starting an empty
    /// one if the latest part is not reasoning: the reasoning itself was
    /// redacted or not streamed).
    pub fn reasoning_signature(&mut self, choice: u64, signature: &str) {
        if !self.choice_ok(choice) {
            return;
        }
        if !matches!(self.last_part(choice), Some(Part::Reasoning { .. })) {
            if self.part_limit_reached(choice) {
                return;
            }
            self.emit(StreamEvent::PartStart {
                choice,
                kind: Flow::Reasoning,
            });
        }
        if let Some(part) = self.last_part_position(choice) {
            self.reasoning_signature_at(choice, part, signature);
        }
    }

    /// Sets the signature of the reasoning part at `position` in
    /// `choice`'s content (an earlier one is replaced); whether that part
    /// is reasoning.
    pub(crate) fn reasoning_signature_at(
        &mut self,
        choice: u64,
        position: usize,
        signature: &str,
    ) -> bool {
        let part = self
            .message
            .choices
            .get(&choice)
            .and_then(|c| c.content.get(position));
        if !matches!(part, Some(Part::Reasoning { .. })) {
            return false;
        }
        self.emit(StreamEvent::ReasoningSignature {
            choice,
            part: position,
            signature: String::from(signature),
        });
        true
    }

    /// Keeps a block as the provider sent it; its position in the
    /// choice's content (to update it in place as the wire fills it in),
    /// unless a limit refused it.
    pub fn raw_part(&mut self, choice: u64, value: Value) -> Option<usize> {
        if !self.choice_ok(choice) || self.part_limit_reached(choice) {
            return None;
        }
        self.emit(StreamEvent::RawPart { choice, value });
        self.last_part_position(choice)
    }

    /// The raw part at `position` of `choice`, if it is one.
    pub(crate) fn raw_part_at(&self, choice: u64, position: usize) -> Option<&Value> {
        match self.message.choices.get(&choice)?.content.get(position)? {
            Part::Raw(value) => Some(value),
            _ => None,
        }
    }

    /// Sets a member of the raw part (an object) at `position`.
    pub(crate) fn raw_part_member(
        &mut self,
        choice: u64,
        position: usize,
        member: &str,
        value: Value,
    ) {
        if matches!(self.raw_part_at(choice, position), Some(Value::Object(_))) {
            self.emit(StreamEvent::RawPartMember {
                choice,
                part: position,
                member: String::from(member),
                value,
            });
        }
    }

    /// Appends text to a string member of the raw part (an object) at
    /// `position` (sets it when it is not a string): costs the text, not
    /// the member, so that a block growing over many deltas stays linear.
    pub(crate) fn raw_part_append(
        &mut self,
        choice: u64,
        position: usize,
        member: &str,
        text: &str,
    ) {
        if matches!(self.raw_part_at(choice, position), Some(Value::Object(_))) {
            self.emit(StreamEvent::RawPartAppend {
                choice,
                part: position,
                member: String::from(member),
                text: String::from(text),
            });
        }
    }

    /// Replaces the raw part at `position` whole.
    pub(crate) fn raw_part_replace(&mut self, choice: u64, position: usize, value: Value) {
        if self.raw_part_at(choice, position).is_some() {
            self.emit(StreamEvent::RawPartReplace {
                choice,
                part: position,
                value,
            });
        }
    }

    /// Appends log probabilities of tokens of `choice`'s answer text
    /// (OpenAI Chat's `logprobs.content`, Gemini's `logprobsResult`) to
    /// its latest text part: the one the text that came with them went to,
    /// whatever parts the same chunk added after it (a tool call, a
    /// signature). With no text part yet, to a new, empty one that the
    /// text to come extends.
    pub fn logprobs(&mut self, choice: u64, items: impl IntoIterator<Item = Value>) {
        self.flow_logprobs(choice, Flow::Text, items);
    }

    /// [`MessageBuilder::logprobs`] for refusal text (OpenAI Chat's
    /// `logprobs.refusal`), on a refusal part.
    pub(crate) fn refusal_logprobs(&mut self, choice: u64, items: impl IntoIterator<Item = Value>) {
        self.flow_logprobs(choice, Flow::Refusal, items);
    }

    pub(super) fn flow_logprobs(
        &mut self,
        choice: u64,
        flow: Flow,
        items: impl IntoIterator<Item = Value>,
    ) {
        let items: Vec<Value> = items.into_iter().collect();
        if items.is_empty() {
            return;
        }
        let latest = self
            .message
            .choices
            .get(&choice)
            .and_then(|c| c.content.iter().rposition(|p| flow.owns(p)));
        if let Some(position) = latest.or_else(|| self.part_for(choice, flow)) {
            self.logprobs_at(choice, position, items);
        }
    }

    /// Appends log probabilities of tokens of the text or refusal part at
    /// `position` in `choice`'s content (OpenAI Responses: each
    /// `output_text` part has its own). Returns whether that part is text
    /// or a refusal (nothing is kept otherwise).
    pub(crate) fn logprobs_at(
        &mut self,
        choice: u64,
        position: usize,
        items: impl IntoIterator<Item = Value>,
    ) -> bool {
        let part = self
            .message
            .choices
            .get(&choice)
            .and_then(|c| c.content.get(position));
        if !matches!(part, Some(Part::Text(_) | Part::Refusal(_))) {
            return false;
        }
        self.emit(StreamEvent::Logprobs {
            choice,
            part: position,
            logprobs: items.into_iter().collect(),
        });
        true
    }

    /// The part of `flow` that text of `choice` arriving now would extend,
    /// for what comes before that text (a citation, log probabilities):
    /// the latest part, if it is of `flow` and no part break is pending;
    /// else a new, empty one (`None` if a limit refused it, or the choice).
    pub(super) fn part_for(&mut self, choice: u64, flow: Flow) -> Option<usize> {
        let pending = self.part_break.get(&choice).copied().unwrap_or(false);
        if !self.choice_ok(choice) {
            return None;
        }
        if pending || !self.last_part(choice).is_some_and(|p| flow.owns(p)) {
            self.begin(choice, flow);
        }
        let position = self.last_part_position(choice)?;
        self.last_part(choice)
            .filter(|p| flow.owns(p))
            .map(|_| position)
    }

    /// Starts a new, empty text part now, consuming a pending
    /// [`MessageBuilder::break_part`]: for a block that carries something
    /// before its first text (Anthropic's citations arrive before the text
    /// they cite), so that it lands on this block's part and the text that
    /// follows merges into it.
    pub fn begin_text(&mut self, choice: u64) {
        self.begin(choice, Flow::Text);
    }

    /// Starts a new, empty reasoning part now, consuming a pending
    /// [`MessageBuilder::break_part`]: for a signature that arrives in a
    /// block with no reasoning text, so that it does not overwrite the
    /// signature of an earlier block's part.
    pub(crate) fn begin_reasoning(&mut self, choice: u64) {
        self.begin(choice, Flow::Reasoning);
    }

    /// Starts a new, empty part of `flow`, consuming a pending part break
    /// (a refusal part makes [`Choice::refusal`](super::Choice::refusal)
    /// `Some`, as its text would).
    pub(super) fn begin(&mut self, choice: u64, flow: Flow) {
        if !self.choice_ok(choice) || self.part_limit_reached(choice) {
            return;
        }
        self.part_break.remove(&choice);
        self.emit(StreamEvent::PartStart { choice, kind: flow });
    }

    /// Attaches a citation to the latest text part of `choice` (starting an
    /// empty one when the latest part is not text or a part break is
    /// pending). Citations are appended, in arrival order.
    pub fn citation(&mut self, choice: u64, citation: Value) {
        if let Some(position) = self.part_for(choice, Flow::Text) {
            self.citation_at(choice, position, citation);
        }
    }

    /// The position in [`Choice::content`](crate::providers::Choice::content) of the
    /// latest part of `choice` (`None` before its first part): where a
    /// part just added landed, so that it can be found again after later
    /// parts follow.
    pub fn last_part_position(&self, choice: u64) -> Option<usize> {
        let c = self.message.choices.get(&choice)?;
        c.content.len().checked_sub(1)
    }

    /// Replaces the citation at `index` of the text part at `position`
    /// with a fuller copy the provider sent again (Gemini repeats its
    /// `groundingMetadata` on later chunks).
    pub(crate) fn citation_replace(
        &mut self,
        choice: u64,
        position: usize,
        index: usize,
        citation: Value,
    ) {
        let exists = self
            .message
            .choices
            .get(&choice)
            .and_then(|c| c.citations.get(&position))
            .is_some_and(|list| index < list.len());
        if exists {
            self.emit(StreamEvent::CitationReplace {
                choice,
                part: position,
                index,
                citation,
            });
        }
    }

    /// The part at `position` of `flow` gets `text` as its final copy,
    /// its running total with it: for wires that repeat a finished text
    /// whole (OpenAI Responses' `output_text.done`, `output_item.done`,
    /// `response.completed`) when it disagrees with the streamed deltas.
    /// Returns whether that part is of `flow` (nothing changes otherwise).
    pub(crate) fn replace_at(
        &mut self,
        choice: u64,
        position: usize,
        flow: Flow,
        text: &str,
    ) -> bool {
        let part = self
            .message
            .choices
            .get(&choice)
            .and_then(|c| c.content.get(position));
        if !part.is_some_and(|p| flow.owns(p)) {
            return false;
        }
        self.emit(StreamEvent::PartReplace {
            choice,
            part: position,
            kind: flow,
            text: String::from(text),
        });
        true
    }

    /// Reorders the content parts of `choice` from `start` on: the part
    /// now at `start + order[i]` goes to `start + i`, with everything kept
    /// by part position (see [`StreamEvent::PartsReorder`]). Returns where
    /// each part went (the new position of the part that was at
    /// `start + i`, at `i`); `None`, with nothing changed, unless `order`
    /// names each position from `start` to the end once.
    ///
    /// For parts that belong before some already there, though they came
    /// after them (OpenAI Responses items that only the terminal
    /// `response.output` carries, each placed by its `output_index`): the
    /// accumulator appends them as usual, then puts them in place in one
    /// pass — inserting them one by one would move the parts and text
    /// after each insertion point once per part.
    pub(crate) fn reorder(
        &mut self,
        choice: u64,
        start: usize,
        order: &[usize],
    ) -> Option<Vec<usize>> {
        let c = self.message.choices.get(&choice)?;
        let count = c.content.len().checked_sub(start)?;
        let moved_to = reorder_positions(start, count, order)?;
        self.emit(StreamEvent::PartsReorder {
            choice,
            start,
            order: order.to_vec(),
        });
        Some(moved_to)
    }

    /// Attaches a citation to the text part at `position` in `choice`'s
    /// content, which need not be the latest part (OpenAI Responses
    /// annotations name the item and part they belong to). Returns its
    /// index among that part's citations; `None`, with nothing attached,
    /// if that part is not text.
    pub fn citation_at(&mut self, choice: u64, position: usize, citation: Value) -> Option<usize> {
        let c = self.message.choices.get(&choice)?;
        if !matches!(c.content.get(position), Some(Part::Text(_))) {
            return None;
        }
        let index = c.citations.get(&position).map_or(0, Vec::len);
        self.emit(StreamEvent::Citation {
            choice,
            part: position,
            citation,
        });
        Some(index)
    }

    /// Sets the phase of the text part at `position` in `choice`'s content
    /// (OpenAI Responses `phase`), if it is text and has none yet.
    pub(crate) fn text_phase_at(&mut self, choice: u64, position: usize, phase: &str) {
        let Some(c) = self.message.choices.get(&choice) else {
            return;
        };
        if matches!(c.content.get(position), Some(Part::Text(_)))
            && !c.phases.contains_key(&position)
        {
            self.emit(StreamEvent::Phase {
                choice,
                part: position,
                phase: String::from(phase),
            });
        }
    }
}
