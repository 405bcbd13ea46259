//! Output items as a whole: added and done, the final `output` list, the
//! order of their parts, reasoning items.

use super::*;

/// The most item ids kept to match the terminal output by (a stream has
/// as many items as parts, at most).
const MAX_ITEM_IDS: usize = 4096;

impl OpenAiResponsesAccumulator {
    /// An `output_item.*` event's key and item; either one marks the
    /// response as started and as having output.
    pub(super) fn item<'v, V: View<'v>>(&mut self, payload: V) -> Option<(u64, V)> {
        let key = self.key(payload)?;
        self.ensure_started();
        self.response.has_items = true;
        let item = payload.get("item")?;
        if let Some(id) = get_str(item, "id").filter(|id| !id.is_empty()) {
            if !self.item_ids.contains_key(id) && self.item_ids.len() < MAX_ITEM_IDS {
                self.item_ids.insert(String::from(id), key);
            }
        }
        // Every output item is the model's: a reply that only calls a tool
        // (no `message` item to carry a role) is the assistant's too.
        if get_str(item, "type") != Some("message") {
            self.builder.role(CHOICE, "assistant");
        }
        Some((key, item))
    }

    pub(super) fn item_added<'v>(&mut self, payload: impl View<'v>) {
        let Some((key, item)) = self.item(payload) else {
            return;
        };
        match get_str(item, "type") {
            Some("message") => {
                if let Some(role) = get_str(item, "role") {
                    self.builder.role(CHOICE, role);
                }
                self.phase(key, get_str(item, "phase"));
            }
            Some("function_call") => {
                self.call_start(key, Some(item), true);
                self.call_reconcile(key, get_str(item, "arguments"), true);
            }
            Some("custom_tool_call") => {
                self.call_start(key, Some(item), false);
                self.call_reconcile(key, get_str(item, "input"), false);
            }
            _ => {
                if let Some(tool) = ItemTool::of(item) {
                    self.tool_item_start(key, item, tool);
                }
            }
        }
    }

    pub(super) fn item_done<'v>(&mut self, payload: impl View<'v>) {
        let Some((key, item)) = self.item(payload) else {
            return;
        };
        self.done.insert(key);
        self.item_finished(key, item, Final::Item);
    }

    /// A finished output item (of `output_item.done`, or of the terminal
    /// event's `response.output` when its own never came).
    pub(super) fn item_finished<'v>(&mut self, key: u64, item: impl View<'v>, copy: Final) {
        match get_str(item, "type") {
            Some("message") => self.message_done(key, item, copy),
            Some(kind @ ("function_call" | "custom_tool_call")) => {
                let (json, field) = if kind == "function_call" {
                    (true, "arguments")
                } else {
                    (false, "input")
                };
                self.call_start(key, Some(item), json);
                self.call_reconcile(key, get_str(item, field), json);
                self.builder.tool_call_end(CHOICE, key);
            }
            Some("reasoning") => self.reasoning_done(key, item, copy),
            _ => match ItemTool::of(item) {
                Some(tool) => self.tool_item_done(key, item, tool),
                None => {
                    self.builder.raw_part(CHOICE, item.to_value());
                }
            },
        }
    }

    /// A finished message item: its role, phase, and each content part's
    /// final text, log probabilities and annotations.
    pub(super) fn message_done<'v>(&mut self, key: u64, item: impl View<'v>, copy: Final) {
        if let Some(role) = get_str(item, "role") {
            self.builder.role(CHOICE, role);
        }
        self.phase(key, get_str(item, "phase"));
        let parts = item.get("content").into_iter().flat_map(View::elements);
        for (index, part) in parts.enumerate() {
            self.content_part(key, index as u64, part, copy);
        }
    }

    /// The terminal event's `response.output`, the response as the server
    /// stored it: each message's and reasoning item's texts are checked
    /// against what streamed, and an item whose `output_item.done` never
    /// came (a resumed stream, a body with only the terminal event) is read
    /// from it, its new parts put where its output index says.
    ///
    /// The items that streamed are read first, while their parts are where
    /// the stream left them: a copy that only adds to the latest part's
    /// text streams on as its delta, which a new item's part appended
    /// before it would have turned into a correction without events.
    pub(super) fn output<'v>(&mut self, output: impl View<'v>) {
        self.sync_parts();
        let first_new = self.part_keys.len();
        let mut moved = Vec::new();
        for seen in [true, false] {
            for (index, item) in output.elements().enumerate() {
                let Some(key) = self.output_key(index as u64, item, &mut moved) else {
                    break;
                };
                let done = self.done.contains(&key);
                if (done || self.keys_with_parts.contains(&key)) != seen {
                    continue;
                }
                if done {
                    match get_str(item, "type") {
                        Some("message") => self.message_done(key, item, Final::Response),
                        Some("reasoning") => self.reasoning_texts(key, item, Final::Response),
                        _ => {}
                    }
                    continue;
                }
                self.ensure_started();
                self.response.has_items = true;
                if get_str(item, "type") != Some("message") {
                    self.builder.role(CHOICE, "assistant");
                }
                self.done.insert(key);
                self.item_finished(key, item, Final::Response);
            }
        }
        self.sync_parts();
        self.place_parts(first_new);
        moved.sort_unstable();
        moved.dedup();
        if let Some(&(index, streamed)) = moved.first() {
            self.builder.error(
                ErrorInfo::new(format!(
                    "the final response's output does not match the stream's items: its item \
                     {index} streamed at output index {streamed} ({} such); read as the item \
                     that streamed, not again",
                    moved.len()
                ))
                .with_kind("output_mismatch"),
            );
        }
    }

    /// The key of the terminal output's item at `index`: the item that
    /// streamed with its `id`, when one did (noted in `moved` when that was
    /// at another index), else the item at that output index.
    fn output_key<'v>(
        &mut self,
        index: u64,
        item: impl View<'v>,
        moved: &mut Vec<(u64, u64)>,
    ) -> Option<u64> {
        let streamed = get_str(item, "id").and_then(|id| self.item_ids.get(id).copied());
        match streamed {
            Some(key) if key >= self.offset => {
                let at = key - self.offset;
                if at != index {
                    moved.push((index, at));
                }
                self.key_at(at)
            }
            _ => self.key_at(index),
        }
    }

    /// Puts the parts made from `first_new` on (by the terminal response's
    /// output) where their items' keys say among the current response's
    /// parts: in key order (an item's parts in the order made), each
    /// after the parts already there of its item and earlier ones. The
    /// parts already there keep their order.
    pub(super) fn place_parts(&mut self, first_new: usize) {
        let keys = &self.part_keys;
        let end = keys.len();
        let key = |p: usize| keys.get(p).copied().unwrap_or((u64::MAX, 0, 0));
        // Made in two passes (the items that streamed, then the others),
        // the new parts need not be in key order themselves.
        let mut new: Vec<usize> = (first_new..end).collect();
        new.sort_by_key(|&p| key(p));
        let Some(&least) = new.first() else {
            return;
        };
        // The first part that a new one goes before: nothing moves before it.
        let from = self.first_part.min(first_new);
        let start = (from..first_new)
            .find(|&p| key(p) > key(least))
            .unwrap_or(first_new);
        let (mut old, mut order) = (start, Vec::with_capacity(end - start));
        for &p in &new {
            while old < first_new && key(old) <= key(p) {
                order.push(old - start);
                old += 1;
            }
            order.push(p - start);
        }
        order.extend((old..first_new).map(|p| p - start));
        if order.iter().enumerate().all(|(to, &at)| to == at) {
            return;
        }
        // What moves: the text of every part from `start` on.
        let cost = self.builder.message().choices.get(&CHOICE).map_or(0, |c| {
            let parts = c.content.get(start..).unwrap_or_default();
            Flow::ALL.iter().map(|flow| flow.len(parts)).sum()
        });
        if cost > self.budget {
            self.builder.error(ErrorInfo::new(format!(
                "{} output items of the final response were left after the items that \
                 streamed: too many were put in place already",
                end - first_new
            )));
            return;
        }
        let Some(moved_to) = self.builder.reorder(CHOICE, start, &order) else {
            return;
        };
        self.budget -= cost;
        // Every position kept here moves with its part.
        let keys: Vec<PartKey> = order
            .iter()
            .filter_map(|&at| self.part_keys.get(start + at).copied())
            .collect();
        self.part_keys.truncate(start);
        self.part_keys.extend(keys);
        for kind in SegmentKind::ALL {
            let range = (kind, self.offset, 0)..=(kind, u64::MAX, u64::MAX);
            for state in self.segments.range_mut(range).map(|(_, s)| s) {
                if let Some(part) = state.part.as_mut() {
                    if let Some(&to) = part.checked_sub(start).and_then(|at| moved_to.get(at)) {
                        *part = to;
                    }
                }
            }
        }
        // The latest part may be another now: the next delta starts its
        // own part rather than extending whichever is last.
        self.segment = None;
    }

    /// The final copies of a reasoning item's texts: each of its
    /// `summary` and of its `content` (`reasoning_text` parts).
    pub(super) fn reasoning_texts<'v>(&mut self, key: u64, item: impl View<'v>, copy: Final) {
        let summary = item.get("summary").into_iter().flat_map(View::elements);
        for (index, part) in summary.enumerate() {
            let segment = (SegmentKind::Summary, key, index as u64);
            self.prose_final(segment, get_str(part, "text"), copy);
        }
        let content = item.get("content").into_iter().flat_map(View::elements);
        for (index, part) in content.enumerate() {
            self.content_part(key, index as u64, part, copy);
        }
    }

    /// A finished reasoning item: its texts' final copies, and its
    /// encrypted content as the signature of its reasoning part.
    pub(super) fn reasoning_done<'v>(&mut self, key: u64, item: impl View<'v>, copy: Final) {
        self.reasoning_texts(key, item, copy);
        let Some(blob) = get_str(item, "encrypted_content") else {
            return;
        };
        // On the part its reasoning streamed into, wherever that is now
        // (text may have followed it before its end came: with the end
        // lost, from the terminal response's output).
        let streamed = [SegmentKind::Summary, SegmentKind::ReasoningText]
            .into_iter()
            .flat_map(|kind| self.segments.range((kind, key, 0)..=(kind, key, u64::MAX)))
            .filter_map(|(_, state)| state.part)
            .max();
        if let Some(position) = streamed {
            if self.builder.reasoning_signature_at(CHOICE, position, blob) {
                return;
            }
        }
        // The signature goes on the latest reasoning part: this item's if
        // it streamed any, a new one if the latest part is not reasoning.
        // Otherwise it would overwrite another item's signature, so the
        // item is kept whole instead.
        let own = matches!(
            self.segment,
            Some((SegmentKind::Summary | SegmentKind::ReasoningText, k, _)) if k == key
        );
        let last_is_reasoning = matches!(
            self.builder
                .message()
                .choices
                .get(&CHOICE)
                .and_then(|c| c.content.last()),
            Some(Part::Reasoning { .. })
        );
        if own || !last_is_reasoning {
            self.builder.reasoning_signature(CHOICE, blob);
        } else {
            self.builder.raw_part(CHOICE, item.to_value());
        }
    }
}
