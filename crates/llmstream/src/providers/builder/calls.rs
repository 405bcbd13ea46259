//! Tool calls: their start, identity, argument fragments parsed as they
//! arrive, final copies and end.

use super::*;

impl MessageBuilder {
    /// Whether the tool call exists.
    pub fn has_tool_call(&self, choice: u64, call: u64) -> bool {
        self.message.any_call(choice, call).is_some()
    }

    /// Begins a tool call whose arguments are JSON; see
    /// [`MessageBuilder::tool_call_start_with`].
    pub(crate) fn tool_call_start(&mut self, choice: u64, call: u64, id: &str, name: &str) {
        self.tool_call_start_with(choice, call, id, name, None, ArgumentStream::json());
    }

    /// Begins a tool call (or completes the id and name of one that
    /// exists: each is set once, so a fragment repeating them changes
    /// nothing). `kind` is the wire's type (`function`, `custom`, …).
    pub fn tool_call_start_with(
        &mut self,
        choice: u64,
        call: u64,
        id: &str,
        name: &str,
        kind: Option<&str>,
        mut arguments: ArgumentStream,
    ) {
        if self.has_tool_call(choice, call) {
            self.tool_call_identify(choice, call, Some(id), Some(name));
            return;
        }
        if !self.choice_ok(choice) {
            return;
        }
        let max_calls = self.limits.max_tool_calls;
        let calls = self
            .message
            .choices
            .get(&choice)
            .map_or(0, |c| c.tool_calls.len() + c.provider_tools.len());
        if calls >= max_calls {
            self.error(ErrorInfo::new(format!(
                "more than {max_calls} tool calls in choice {choice}: call {call} ignored"
            )));
            return;
        }
        if self.part_limit_reached(choice) {
            return;
        }
        arguments.drop_text();
        arguments.set_lenient(self.lenient_arguments);
        self.arguments.insert((choice, call), Box::new(arguments));
        self.open.insert((choice, call));
        self.emit(StreamEvent::ToolCallStart {
            choice,
            call,
            id: String::from(id),
            name: String::from(name),
            kind: kind.map(String::from),
        });
    }

    /// Begins a call of a tool the provider runs itself (see
    /// [`Choice::provider_tools`](crate::providers::Choice::provider_tools)): the
    /// same verbs as a client's call serve it (arguments, end), and its
    /// events are the `provider_tool_*` family.
    pub fn provider_tool_start(
        &mut self,
        choice: u64,
        call: u64,
        id: &str,
        name: &str,
        kind: Option<&str>,
        input: ArgumentStream,
    ) {
        if !self.has_tool_call(choice, call) {
            self.provider.insert((choice, call));
        }
        self.tool_call_start_with(choice, call, id, name, kind, input);
    }

    /// A provider-run tool's progress (its status, and the payload's own
    /// detail when there is one).
    pub fn provider_tool_progress(
        &mut self,
        choice: u64,
        call: u64,
        status: &str,
        detail: Option<Value>,
    ) {
        if self.provider.contains(&(choice, call)) && self.has_tool_call(choice, call) {
            self.emit(StreamEvent::ProviderToolProgress {
                choice,
                call,
                status: String::from(status),
                detail,
            });
        }
    }

    /// A provider-run tool's result.
    pub fn provider_tool_result(&mut self, choice: u64, call: u64, result: Value) {
        if self.provider.contains(&(choice, call)) && self.has_tool_call(choice, call) {
            self.emit(StreamEvent::ProviderToolResult {
                choice,
                call,
                result,
            });
        }
    }

    /// The key of the provider-run tool call with this id, if any.
    pub fn provider_tool_key(&self, choice: u64, id: &str) -> Option<u64> {
        let c = self.message.choices.get(&choice)?;
        c.provider_tools
            .iter()
            .find(|(_, tool)| tool.id == id)
            .map(|(key, _)| *key)
    }

    /// Sets a tool call's id and name where still empty.
    pub fn tool_call_identify(
        &mut self,
        choice: u64,
        call: u64,
        id: Option<&str>,
        name: Option<&str>,
    ) {
        let Some(tc) = self.message.any_call(choice, call) else {
            return;
        };
        let id = id.filter(|s| !s.is_empty() && tc.id.is_empty());
        let name = name.filter(|s| !s.is_empty() && tc.name.is_empty());
        if id.is_none() && name.is_none() {
            return;
        }
        self.emit(StreamEvent::ToolCallIdentity {
            choice,
            call,
            id: id.map(String::from),
            name: name.map(String::from),
        });
    }

    /// Appends a fragment of a tool call's arguments (the call is started
    /// with an empty id and name if the wire never announced it).
    pub fn tool_call_arguments(&mut self, choice: u64, call: u64, fragment: &str) {
        if !self.has_tool_call(choice, call) {
            self.tool_call_start(choice, call, "", "");
            if !self.has_tool_call(choice, call) {
                return;
            }
        }
        if fragment.is_empty() {
            return;
        }
        let ended = self
            .arguments
            .get(&(choice, call))
            .is_none_or(|s| s.is_ended());
        if ended {
            // Arguments that ended (complete JSON, or the wire's end of the
            // call) take no more, nor does their text, which stays what the
            // end reported: whitespace may follow; other text (two calls'
            // objects run together, a gateway repeating the text) is left
            // out, and said once, as the call's error and as an error event
            // (its end event went out already).
            let text_after = !fragment
                .trim_start_matches([' ', '\t', '\n', '\r'])
                .is_empty();
            let Some(tc) = self.message.any_call(choice, call) else {
                return;
            };
            if text_after && tc.arguments_error.is_none() {
                let message = format!(
                    "tool call {:?} (choice {choice}, call {call}): text after its arguments ended was left out",
                    tc.id
                );
                self.emit(StreamEvent::ArgumentsError {
                    choice,
                    call,
                    error: ArgumentsError::TextAfterEnd,
                });
                self.error(ErrorInfo::new(message));
            }
            return;
        }
        self.emit(StreamEvent::ToolCallDelta {
            choice,
            call,
            fragment: String::from(fragment),
        });
        // The argument events change nothing in the message (the live
        // value is the stream's, here): queued as they come.
        // A provider-run tool's family has no argument events.
        let client = !self.provider.contains(&(choice, call));
        let events = &mut self.events;
        if let Some(stream) = self.arguments.get_mut(&(choice, call)) {
            stream.feed_with(fragment, |event| {
                if client {
                    events.push_back(StreamEvent::Argument {
                        choice,
                        call,
                        event,
                    });
                }
            });
        }
    }

    /// Replaces a tool call's argument text with `text`, parsed afresh into
    /// `arguments` (a new stream of the same kind the call began with).
    ///
    /// For wires that repeat the whole text at the end (OpenAI Responses'
    /// `function_call_arguments.done`) when it disagrees with the streamed
    /// fragments: the repeated text is authoritative. No delta events are
    /// emitted for it — the fragments already reported cannot be taken
    /// back — but one [`StreamEvent::ArgumentsReplace`]; the
    /// [`StreamEvent::ToolCallEnd`] that follows carries the corrected
    /// arguments. A call that already ended gets its final arguments
    /// recomputed (in that event) without a second end event.
    pub(crate) fn tool_call_replace_arguments(
        &mut self,
        choice: u64,
        call: u64,
        mut arguments: ArgumentStream,
        text: &str,
    ) {
        let Some(tc) = self.message.any_call(choice, call) else {
            return;
        };
        arguments.drop_text();
        arguments.set_lenient(self.lenient_arguments);
        arguments.feed_with(text, |_| {});
        let (value, error) = if tc.ended {
            let value = arguments.end_of(text, |_| {});
            (Some(value), ArgumentsError::of(&arguments))
        } else {
            (None, None)
        };
        self.arguments.insert((choice, call), Box::new(arguments));
        self.emit(StreamEvent::ArgumentsReplace {
            choice,
            call,
            text: String::from(text),
            arguments: value,
            arguments_error: error,
        });
    }

    /// The provider began another message in the same stream after saying
    /// the last one was complete (OpenAI Responses bodies that concatenate
    /// several responses): the message is incomplete again until the next
    /// end signal.
    pub(crate) fn reopen(&mut self) {
        if self.message.complete {
            self.emit(StreamEvent::Reopen);
        }
    }

    /// The raw argument text of a tool call so far.
    pub(crate) fn tool_call_text(&self, choice: u64, call: u64) -> Option<&str> {
        let tc = self.message.any_call(choice, call)?;
        Some(tc.arguments_text.as_str())
    }

    /// Ends a tool call: its final arguments (see [`ArgumentStream::finish`])
    /// and the end event. Ending twice does nothing.
    pub fn tool_call_end(&mut self, choice: u64, call: u64) {
        let Some(stream) = self.arguments.get_mut(&(choice, call)) else {
            return;
        };
        if stream.is_ended() {
            return;
        }
        self.open.remove(&(choice, call));
        let Some(tc) = self.message.any_call(choice, call) else {
            return;
        };
        // As in `tool_call_arguments`, the argument events are queued as
        // they come: they change nothing in the message.
        let client = !self.provider.contains(&(choice, call));
        let events = &mut self.events;
        let arguments = stream.end_of(&tc.arguments_text, |event| {
            if client {
                events.push_back(StreamEvent::Argument {
                    choice,
                    call,
                    event,
                });
            }
        });
        let error = ArgumentsError::of(stream);
        let (id, name) = (tc.id.clone(), tc.name.clone());
        self.emit(StreamEvent::ToolCallEnd {
            choice,
            call,
            id,
            name,
            arguments,
            arguments_error: error,
        });
    }

    /// Ends every tool call still open (at a finish, or the end of the
    /// stream), in key order.
    pub(crate) fn end_tool_calls(&mut self) {
        let open: Vec<(u64, u64)> = self.open.iter().copied().collect();
        for (choice, call) in open {
            self.tool_call_end(choice, call);
        }
    }

    /// Ends the open tool calls of one choice.
    pub(super) fn end_tool_calls_of(&mut self, choice: u64) {
        let open: Vec<u64> = self
            .open
            .range((choice, 0)..=(choice, u64::MAX))
            .map(|&(_, call)| call)
            .collect();
        for call in open {
            self.tool_call_end(choice, call);
        }
    }

    /// Sets the signature that came with a tool call (Gemini's
    /// `thoughtSignature` on a `functionCall` part), which the caller must
    /// send back with the call.
    pub(crate) fn tool_call_signature(&mut self, choice: u64, call: u64, signature: &str) {
        if self.has_tool_call(choice, call) {
            self.emit(StreamEvent::ToolCallSignature {
                choice,
                call,
                signature: String::from(signature),
            });
        }
    }
}
