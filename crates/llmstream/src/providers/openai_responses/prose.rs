//! The text of message and reasoning parts: deltas, the final copies that
//! replace them, annotations, log probabilities and phases.

use super::*;

impl OpenAiResponsesAccumulator {
    /// The length of the choice's running text of this kind.
    pub(super) fn prose_len(&self, kind: SegmentKind) -> usize {
        let choice = self.builder.message().choices.get(&CHOICE);
        choice.map_or(0, |c| kind.flow().running_ref(c).len())
    }

    /// The text of the content part at `position`, if it is of this kind.
    pub(super) fn part_prose(&self, kind: SegmentKind, position: usize) -> Option<&str> {
        let choice = self.builder.message().choices.get(&CHOICE)?;
        kind.flow().text_of(choice.content.get(position)?)
    }

    /// Appends streamed text to its segment, starting a new content part
    /// when the segment changes.
    pub(super) fn segment_text(&mut self, segment: Segment, text: &str) {
        if text.is_empty() {
            return;
        }
        self.ensure_started();
        self.enter(segment);
        if self.segment != Some(segment) {
            self.builder.break_part(CHOICE);
            self.segment = Some(segment);
        }
        let kind = segment.0;
        let before = self.prose_len(kind);
        self.budget = self.budget.saturating_add(text.len());
        self.builder.append(CHOICE, kind.flow(), text);
        let grew = self.prose_len(kind) > before;
        let position = self.builder.last_part_position(CHOICE);
        let state = self.segments.entry(segment).or_default();
        state.streamed = true;
        // Text that was kept landed in the latest part: remember which, so
        // that its final copies, annotations and signature find it.
        let (true, Some(position)) = (grew, position) else {
            return;
        };
        match state.part {
            Some(part) if part == position => return,
            Some(_) => state.split = true,
            None => {}
        }
        state.part = Some(position);
        if kind == SegmentKind::Text {
            if let Some(phase) = self.phases.get(&segment.1) {
                self.builder.text_phase_at(CHOICE, position, phase);
            }
        }
    }

    /// The content part of an answer text, started empty if it has none
    /// yet (an annotation before its text); `None` if a limit refused it.
    pub(super) fn text_part(&mut self, segment: Segment) -> Option<usize> {
        if let Some(part) = self.segments.get(&segment).and_then(|s| s.part) {
            return Some(part);
        }
        self.ensure_started();
        self.enter(segment);
        let before = self.builder.last_part_position(CHOICE);
        self.builder.break_part(CHOICE);
        self.builder.begin_text(CHOICE);
        let position = self.builder.last_part_position(CHOICE)?;
        if before == Some(position) {
            return None;
        }
        self.segment = Some(segment);
        self.segments.entry(segment).or_default().part = Some(position);
        if let Some(phase) = self.phases.get(&segment.1) {
            self.builder.text_phase_at(CHOICE, position, phase);
        }
        Some(position)
    }

    /// A final copy of a streamed text, of any kind (see the module
    /// documentation for the policy): the text the server stored,
    /// authoritative.
    pub(super) fn prose_final(&mut self, segment: Segment, text: Option<&str>, copy: Final) {
        let Some(text) = text.filter(|t| !t.is_empty()) else {
            return;
        };
        self.budget = self.budget.saturating_add(text.len());
        let state = self.segments.entry(segment).or_default();
        if state.copy >= copy {
            return;
        }
        state.copy = copy;
        let (streamed, part, split) = (state.streamed, state.part, state.split);
        let Some(position) = part else {
            // Nothing streamed: the copy is the text (a text that streamed
            // and has no part was refused by a limit, and still is).
            if !streamed {
                self.segment_text(segment, text);
            }
            return;
        };
        let kind = segment.0;
        let Some(current) = self.part_prose(kind, position) else {
            return;
        };
        if split || current == text {
            return;
        }
        let (head, tail) = (text.starts_with(current), text.ends_with(current));
        let streamed_len = current.len();
        let last = self.builder.last_part_position(CHOICE) == Some(position);
        if head && last {
            // Deltas lost at the end (or never sent): the rest streams on.
            let rest = text.get(streamed_len..).unwrap_or("");
            let expected = self.prose_len(kind).saturating_add(rest.len());
            self.segment = Some(segment);
            self.builder.append(CHOICE, kind.flow(), rest);
            if self.prose_len(kind) == expected && self.part_prose(kind, position) == Some(text) {
                return;
            }
        }
        let (key, index) = (segment.1, segment.2);
        let (sub, what) = kind.names();
        let cost = self.prose_after(kind.flow(), position);
        if cost > self.budget {
            self.builder.error(ErrorInfo::new(format!(
                "output {key}, {sub} {index}: the final {what} differs from the streamed \
                 deltas, and too many earlier parts were corrected already: not corrected"
            )));
            return;
        }
        self.budget -= cost;
        if !head && !tail {
            // Neither the head missing (a stream resumed with
            // `starting_after`) nor the tail: the deltas were wrong.
            self.builder.error(ErrorInfo {
                message: format!(
                    "output {key}, {sub} {index}: the final {what} differs from the streamed \
                     deltas; keeping the final text"
                ),
                kind: Some(String::from("text_mismatch")),
                raw: None,
                parse_error: None,
                from_provider: false,
            });
        }
        self.builder.replace_at(CHOICE, position, kind.flow(), text);
    }

    /// The text of this kind after the part at `position`: what replacing
    /// that part's text moves.
    pub(super) fn prose_after(&self, flow: Flow, position: usize) -> usize {
        let Some(choice) = self.builder.message().choices.get(&CHOICE) else {
            return 0;
        };
        let after = choice.content.get(position.saturating_add(1)..);
        flow.len(after.unwrap_or_default())
    }

    /// Log probabilities of an answer text: every delta's are kept; a
    /// final copy's only if none came for that text before.
    pub(super) fn logprobs<'v>(
        &mut self,
        segment: Segment,
        list: Option<impl View<'v>>,
        fill: bool,
    ) {
        let Some(list) = list else {
            return;
        };
        if list.elements().next().is_none() {
            return;
        }
        let state = self.segments.entry(segment).or_default();
        if fill && state.logprobs {
            return;
        }
        state.logprobs = true;
        if let Some(position) = self.text_part(segment) {
            let items = list.elements().map(View::to_value);
            self.builder.logprobs_at(CHOICE, position, items);
        }
    }

    /// Attaches an annotation to its text's part, unless the one with the
    /// same index already was (`output_item.done` repeats those
    /// `annotation.added` sent). Without an index, it is the next one.
    pub(super) fn annotate<'v>(
        &mut self,
        segment: Segment,
        index: Option<u64>,
        annotation: impl View<'v>,
    ) {
        if annotation.is_null() {
            return;
        }
        let state = self.segments.entry(segment).or_default();
        let index = index.unwrap_or(state.annotations.len() as u64);
        if state.annotations.contains(&index) {
            return;
        }
        let Some(position) = self.text_part(segment) else {
            return;
        };
        let attached = self
            .builder
            .citation_at(CHOICE, position, annotation.to_value());
        if attached.is_some() {
            self.segments
                .entry(segment)
                .or_default()
                .annotations
                .insert(index);
        }
    }

    /// The `annotations` of a finished text part, by their index.
    pub(super) fn annotations<'v>(&mut self, segment: Segment, list: Option<impl View<'v>>) {
        let list = list.into_iter().flat_map(View::elements);
        for (index, annotation) in list.enumerate() {
            self.annotate(segment, Some(index as u64), annotation);
        }
    }

    /// The phase of a message item: kept for its text parts to come, and
    /// set on those it has.
    pub(super) fn phase(&mut self, key: u64, phase: Option<&str>) {
        let Some(phase) = phase.filter(|p| !p.is_empty()) else {
            return;
        };
        // The first one wins; parts begun after it get it as they begin.
        if self.phases.contains_key(&key) {
            return;
        }
        let phase = self.phases.entry(key).or_insert(String::from(phase));
        let range = (SegmentKind::Text, key, 0)..=(SegmentKind::Text, key, u64::MAX);
        for state in self.segments.range(range).map(|(_, s)| s) {
            if let Some(position) = state.part {
                self.builder.text_phase_at(CHOICE, position, phase);
            }
        }
    }

    pub(super) fn delta<'v>(
        &mut self,
        kind: SegmentKind,
        sub: &str,
        payload: impl View<'v>,
        field: &str,
    ) {
        // The payload's members, read in one pass.
        let [output_index, index, text, logprobs] =
            payload.get_many(&["output_index", sub, field, "logprobs"]);
        let Some(key) = self.key_of(output_index) else {
            return;
        };
        let segment = (kind, key, index.and_then(View::as_u64).unwrap_or(0));
        let text = text.and_then(View::as_str);
        match (kind, field) {
            (_, "delta") => {
                if let Some(text) = text {
                    self.segment_text(segment, text);
                }
                if kind == SegmentKind::Text {
                    self.logprobs(segment, logprobs, false);
                }
            }
            _ => {
                self.prose_final(segment, text, Final::Part);
                if kind == SegmentKind::Text {
                    self.logprobs(segment, logprobs, true);
                }
            }
        }
    }

    /// `response.output_text.annotation.added`.
    pub(super) fn annotation_added<'v>(&mut self, payload: impl View<'v>) {
        let Some(key) = self.key(payload) else {
            return;
        };
        let segment = (
            SegmentKind::Text,
            key,
            get_u64(payload, "content_index").unwrap_or(0),
        );
        if let Some(annotation) = payload.get("annotation") {
            let index = get_u64(payload, "annotation_index");
            self.annotate(segment, index, annotation);
        }
    }

    /// The segment a content part of item `key` is, and the field holding
    /// its text: `output_text`, `refusal`, and `reasoning_text` (the
    /// content of a reasoning item).
    pub(super) fn part_segment<'v>(
        key: u64,
        index: u64,
        part: impl View<'v>,
    ) -> Option<(Segment, &'v str)> {
        let (kind, field) = match get_str(part, "type")? {
            "output_text" => (SegmentKind::Text, "text"),
            "refusal" => (SegmentKind::Refusal, "refusal"),
            "reasoning_text" => (SegmentKind::ReasoningText, "text"),
            _ => return None,
        };
        Some(((kind, key, index), field))
    }

    /// A finished content part (`content_part.done`, and each of a
    /// finished item's `content`).
    pub(super) fn content_part<'v>(
        &mut self,
        key: u64,
        index: u64,
        part: impl View<'v>,
        copy: Final,
    ) {
        if let Some((segment, field)) = Self::part_segment(key, index, part) {
            self.part_final(segment, field, part, copy);
        }
    }

    /// The final copy of a part's text (in its member `field`), and of an
    /// answer text's log probabilities and annotations.
    pub(super) fn part_final<'v>(
        &mut self,
        segment: Segment,
        field: &str,
        part: impl View<'v>,
        copy: Final,
    ) {
        self.prose_final(segment, get_str(part, field), copy);
        if segment.0 == SegmentKind::Text {
            self.logprobs(segment, part.get("logprobs"), true);
            self.annotations(segment, part.get("annotations"));
        }
    }

    /// The part a `content_part.*` (`content_index`) or
    /// `reasoning_summary_part.*` (`summary_index`) payload is about: its
    /// segment, the member holding its text, and the part.
    pub(super) fn payload_part<'v, V: View<'v>>(
        &mut self,
        payload: V,
    ) -> Option<(Segment, &'v str, V)> {
        let key = self.key(payload)?;
        let part = payload.get("part")?;
        let (segment, field) = match payload.get("summary_index") {
            Some(index) => {
                if get_str(part, "type") != Some("summary_text") {
                    return None;
                }
                (
                    (SegmentKind::Summary, key, index.as_u64().unwrap_or(0)),
                    "text",
                )
            }
            None => {
                let index = get_u64(payload, "content_index").unwrap_or(0);
                Self::part_segment(key, index, part)?
            }
        };
        Some((segment, field, part))
    }

    /// `response.content_part.done` and
    /// `response.reasoning_summary_part.done`.
    pub(super) fn part_done<'v>(&mut self, payload: impl View<'v>) {
        if let Some((segment, field, part)) = self.payload_part(payload) {
            self.part_final(segment, field, part, Final::Part);
        }
    }

    /// `response.content_part.added` and
    /// `response.reasoning_summary_part.added`: a part may begin with
    /// text. It is the part's first delta (the SDK's snapshot keeps the
    /// added part and appends the deltas to it), so the deltas and the
    /// message agree and the final copies find it. Only before anything
    /// streamed into it: a repeated `added` is not its text again.
    pub(super) fn part_added<'v>(&mut self, payload: impl View<'v>) {
        let Some((segment, field, part)) = self.payload_part(payload) else {
            return;
        };
        if self.segments.get(&segment).is_some_and(|s| s.streamed) {
            return;
        }
        if let Some(text) = get_str(part, field) {
            self.segment_text(segment, text);
        }
        if segment.0 == SegmentKind::Text {
            self.logprobs(segment, part.get("logprobs"), false);
            self.annotations(segment, part.get("annotations"));
        }
    }
}
