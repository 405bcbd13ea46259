//! Output items that are neither messages, reasoning nor function calls:
//! the actions the client must carry out (tool calls of the client's) and
//! the tools OpenAI runs itself (provider-run tools, with their progress
//! and their finished item as result).

use super::*;
use crate::json::Map;

/// What an output item asks of the client, by its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ItemTool {
    /// An action the client carries out and answers: a tool call whose
    /// `type` is the item's, its `id` the item's `call_id` (else its
    /// `id`), its arguments the item's action.
    Client,
    /// A tool OpenAI runs itself: a provider-run tool.
    Hosted,
}

impl ItemTool {
    /// The kind of a tool item, `None` for the other items (messages,
    /// reasoning, function and custom tool calls, and items this does not
    /// know, kept as parts).
    pub(super) fn of<'v>(item: impl View<'v>) -> Option<ItemTool> {
        let ty = get_str(item, "type")?;
        match ty {
            "local_shell_call" | "apply_patch_call" | "computer_call" | "mcp_approval_request" => {
                Some(ItemTool::Client)
            }
            // A shell in OpenAI's container is OpenAI's; without one the
            // client runs the commands.
            "shell_call" => match item.get("environment").filter(|e| !e.is_null()) {
                Some(_) => Some(ItemTool::Hosted),
                None => Some(ItemTool::Client),
            },
            "tool_search_call" => match get_str(item, "execution") {
                Some("client") => Some(ItemTool::Client),
                _ => Some(ItemTool::Hosted),
            },
            "web_search_call"
            | "file_search_call"
            | "code_interpreter_call"
            | "image_generation_call"
            | "mcp_call"
            | "mcp_list_tools"
            | "program" => Some(ItemTool::Hosted),
            _ => None,
        }
    }
}

/// The member of a client action item that holds its arguments.
const ACTION_FIELDS: [&str; 4] = ["action", "operation", "input", "arguments"];

impl OpenAiResponsesAccumulator {
    /// A tool item added (or finished without having been added).
    pub(super) fn tool_item_start<'v>(&mut self, key: u64, item: impl View<'v>, tool: ItemTool) {
        if self.builder.has_tool_call(CHOICE, key) {
            return;
        }
        self.response.has_items = true;
        let ty = get_str(item, "type").unwrap_or("");
        match tool {
            ItemTool::Client => {
                self.response.has_calls = true;
                let id = get_str(item, "call_id")
                    .or_else(|| get_str(item, "id"))
                    .unwrap_or("");
                let name = get_str(item, "name").unwrap_or(ty);
                self.builder.tool_call_start_with(
                    CHOICE,
                    key,
                    id,
                    name,
                    Some(ty),
                    ArgumentStream::json(),
                );
            }
            ItemTool::Hosted => {
                let id = get_str(item, "id").unwrap_or("");
                // A code interpreter's input is the code it runs.
                let input = match ty {
                    "code_interpreter_call" => ArgumentStream::text(),
                    _ => ArgumentStream::json(),
                };
                self.builder
                    .provider_tool_start(CHOICE, key, id, ty, Some(ty), input);
                if let Some(status) = get_str(item, "status") {
                    self.builder
                        .provider_tool_progress(CHOICE, key, status, None);
                }
            }
        }
    }

    /// A tool item finished: a client action's arguments (its action)
    /// and end; a hosted tool's input (its action, or the code it ran),
    /// end, and the finished item as its result.
    pub(super) fn tool_item_done<'v>(&mut self, key: u64, item: impl View<'v>, tool: ItemTool) {
        self.tool_item_start(key, item, tool);
        let streamed = self
            .builder
            .tool_call_text(CHOICE, key)
            .is_some_and(|t| !t.is_empty());
        if !streamed {
            let input = match tool {
                ItemTool::Client => ACTION_FIELDS.iter().find_map(|f| item.get(f)),
                ItemTool::Hosted => ["action", "arguments", "code", "query"]
                    .iter()
                    .find_map(|f| item.get(f).filter(|v| !v.is_null())),
            };
            if let Some(input) = input {
                match input.as_str() {
                    Some(text) => self.builder.tool_call_arguments(CHOICE, key, text),
                    None => {
                        let text = input.to_json();
                        self.builder.tool_call_arguments(CHOICE, key, &text);
                    }
                }
            }
        }
        self.builder.tool_call_end(CHOICE, key);
        if tool == ItemTool::Hosted {
            if let Some(status) = get_str(item, "status") {
                self.builder
                    .provider_tool_progress(CHOICE, key, status, None);
            }
            self.builder
                .provider_tool_result(CHOICE, key, item.to_value());
        }
    }

    /// An event about a hosted tool's item (`response.web_search_call.searching`,
    /// `response.code_interpreter_call_code.delta`, …): its input
    /// streaming (code, MCP arguments) as the tool's input, anything else
    /// as its progress, named by the event's last word, with the payload's
    /// own members as its detail. Events of the client's actions (their
    /// input arrives whole with the finished item) and of items that are
    /// no tool change nothing.
    pub(super) fn tool_event<'v>(&mut self, ty: &str, payload: impl View<'v>) {
        let Some(key) = self.key(payload) else {
            return;
        };
        if self.builder.message().provider_tool(CHOICE, key).is_none() {
            return;
        }
        let (head, status) = ty.rsplit_once('.').unwrap_or(("", ty));
        let input = head.ends_with("_code") || head.ends_with("_arguments");
        if input && status == "delta" {
            if let Some(fragment) = get_str(payload, "delta") {
                self.builder.tool_call_arguments(CHOICE, key, fragment);
            }
            return;
        }
        if input && status == "done" {
            return;
        }
        let mut detail = Map::new();
        for (name, value) in payload.members() {
            if !matches!(
                name,
                "type" | "item_id" | "output_index" | "sequence_number"
            ) {
                detail.push(name, value.to_value());
            }
        }
        let detail = (!detail.is_empty()).then_some(Value::Object(detail));
        self.builder
            .provider_tool_progress(CHOICE, key, status, detail);
    }
}
