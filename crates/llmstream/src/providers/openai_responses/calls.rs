//! Function, custom and client-executed tool calls: their start, argument
//! deltas and final copies.

use super::*;

impl OpenAiResponsesAccumulator {
    /// Begins the tool call at `key` if it has not begun.
    pub(super) fn call_start<'v>(&mut self, key: u64, item: Option<impl View<'v>>, json: bool) {
        self.ensure_started();
        self.response.has_items = true;
        self.response.has_calls = true;
        let id = item.and_then(|i| get_str(i, "call_id"));
        let name = item.and_then(|i| get_str(i, "name"));
        if self.builder.has_tool_call(CHOICE, key) {
            self.builder.tool_call_identify(CHOICE, key, id, name);
            return;
        }
        let (kind, stream) = if json {
            ("function", ArgumentStream::json())
        } else {
            ("custom", ArgumentStream::text())
        };
        self.builder.tool_call_start_with(
            CHOICE,
            key,
            id.unwrap_or(""),
            name.unwrap_or(""),
            Some(kind),
            stream,
        );
        if self.builder.has_tool_call(CHOICE, key) {
            self.calls.insert(key, json);
        }
    }

    pub(super) fn call_delta<'v>(&mut self, payload: impl View<'v>, json: bool) {
        let [output_index, delta] = payload.get_many(&["output_index", "delta"]);
        let Some(key) = self.key_of(output_index) else {
            return;
        };
        if !self.builder.has_tool_call(CHOICE, key) {
            self.call_start(key, None::<&Value>, json);
        }
        if let Some(fragment) = delta.and_then(View::as_str) {
            self.builder.tool_call_arguments(CHOICE, key, fragment);
        }
    }

    /// Checks a repeated whole argument text against the accumulated one
    /// (see the module documentation for the policy).
    pub(super) fn call_reconcile(&mut self, key: u64, text: Option<&str>, json: bool) {
        let Some(text) = text.filter(|t| !t.is_empty()) else {
            return;
        };
        if !self.builder.has_tool_call(CHOICE, key) {
            self.call_start(key, None::<&Value>, json);
        }
        let accumulated = self.builder.tool_call_text(CHOICE, key).unwrap_or("");
        if accumulated == text {
            return;
        }
        if let Some(rest) = text.strip_prefix(accumulated) {
            let rest = String::from(rest);
            self.builder.tool_call_arguments(CHOICE, key, &rest);
            return;
        }
        self.builder.error(ErrorInfo {
            message: format!(
                "tool call {key}: the repeated argument text differs from the streamed deltas; \
                 keeping the repeated text"
            ),
            kind: Some(String::from("arguments_mismatch")),
            raw: None,
            parse_error: None,
            from_provider: false,
        });
        let json = self.calls.get(&key).copied().unwrap_or(json);
        let stream = if json {
            ArgumentStream::json()
        } else {
            ArgumentStream::text()
        };
        self.builder
            .tool_call_replace_arguments(CHOICE, key, stream, text);
    }

    pub(super) fn call_done<'v>(&mut self, payload: impl View<'v>, field: &str, json: bool) {
        if let Some(key) = self.key(payload) {
            self.call_reconcile(key, get_str(payload, field), json);
        }
    }
}
