//! A whole (non-streaming) response, folded from the translated stream the
//! way each provider's SDK folds its own: so a `stream: false` answer maps
//! finish reasons, counts and ids exactly as the streamed one does.

use llmstream::providers::Provider;
use serde_json::{json, Map, Value};

/// Folds the data of a translated stream's events, in order, into the
/// whole response of `api`.
pub fn fold(api: Provider, events: &[Value]) -> Value {
    match api {
        Provider::OpenAiChat => chat(events),
        Provider::OpenAiResponses => events
            .iter()
            .rev()
            .find_map(|e| e.get("response").filter(|_| is_terminal(e)).cloned())
            .unwrap_or_else(|| json!({"object": "response", "status": "incomplete", "output": []})),
        Provider::Anthropic => anthropic(events),
        Provider::Gemini => gemini(events),
    }
}

fn is_terminal(event: &Value) -> bool {
    matches!(
        event["type"].as_str(),
        Some("response.completed" | "response.incomplete" | "response.failed")
    )
}

fn append(target: &mut Value, text: &str) {
    match target {
        Value::String(s) => s.push_str(text),
        other => *other = Value::String(text.to_string()),
    }
}

fn chat(events: &[Value]) -> Value {
    let (mut id, mut model, mut usage) = (Value::Null, Value::Null, Value::Null);
    let mut choices: Vec<(u64, Value)> = Vec::new();
    for event in events {
        if id.is_null() {
            id = event["id"].clone();
            model = event["model"].clone();
        }
        if event.get("usage").is_some_and(Value::is_object) {
            usage = event["usage"].clone();
        }
        for choice in event["choices"].as_array().into_iter().flatten() {
            let index = choice["index"].as_u64().unwrap_or(0);
            let at = match choices.iter().position(|(i, _)| *i == index) {
                Some(at) => at,
                None => {
                    choices.push((
                        index,
                        json!({"index": index, "message": {"role": "assistant", "content": null},
                               "finish_reason": null}),
                    ));
                    choices.len() - 1
                }
            };
            let Some((_, whole)) = choices.get_mut(at) else {
                continue;
            };
            let delta = &choice["delta"];
            for field in ["content", "reasoning_content", "refusal"] {
                if let Some(text) = delta[field].as_str() {
                    append(&mut whole["message"][field], text);
                }
            }
            for call in delta["tool_calls"].as_array().into_iter().flatten() {
                let slot = call["index"].as_u64().unwrap_or(0) as usize;
                let calls = &mut whole["message"]["tool_calls"];
                if !calls.is_array() {
                    *calls = json!([]);
                }
                let Some(list) = calls.as_array_mut() else {
                    continue;
                };
                while list.len() <= slot {
                    list.push(json!({"id": "", "type": "function",
                                     "function": {"name": "", "arguments": ""}}));
                }
                if let Some(whole_call) = list.get_mut(slot) {
                    if let Some(id) = call["id"].as_str() {
                        whole_call["id"] = json!(id);
                    }
                    if let Some(name) = call["function"]["name"].as_str() {
                        whole_call["function"]["name"] = json!(name);
                    }
                    if let Some(text) = call["function"]["arguments"].as_str() {
                        append(&mut whole_call["function"]["arguments"], text);
                    }
                }
            }
            if !choice["finish_reason"].is_null() {
                whole["finish_reason"] = choice["finish_reason"].clone();
            }
        }
    }
    choices.sort_by_key(|(i, _)| *i);
    json!({
        "id": id, "object": "chat.completion", "created": 0, "model": model,
        "choices": choices.into_iter().map(|(_, c)| c).collect::<Vec<_>>(),
        "usage": usage,
    })
}

fn anthropic(events: &[Value]) -> Value {
    let mut message = json!({"type": "message", "role": "assistant", "content": []});
    let mut inputs: Vec<(usize, String)> = Vec::new();
    for event in events {
        match event["type"].as_str() {
            Some("message_start") => message = event["message"].clone(),
            Some("content_block_start") => {
                if let Some(content) = message["content"].as_array_mut() {
                    content.push(event["content_block"].clone());
                }
            }
            Some("content_block_delta") => {
                let index = event["index"].as_u64().unwrap_or(0) as usize;
                let delta = &event["delta"];
                let Some(block) = message["content"].get_mut(index) else {
                    continue;
                };
                match delta["type"].as_str() {
                    Some("text_delta") => {
                        append(&mut block["text"], delta["text"].as_str().unwrap_or(""))
                    }
                    Some("thinking_delta") => append(
                        &mut block["thinking"],
                        delta["thinking"].as_str().unwrap_or(""),
                    ),
                    Some("signature_delta") => block["signature"] = delta["signature"].clone(),
                    Some("input_json_delta") => {
                        let text = delta["partial_json"].as_str().unwrap_or("");
                        match inputs.iter_mut().find(|(i, _)| *i == index) {
                            Some((_, held)) => held.push_str(text),
                            None => inputs.push((index, text.to_string())),
                        }
                    }
                    _ => {}
                }
            }
            Some("message_delta") => {
                if let (Some(whole), Some(delta)) =
                    (message.as_object_mut(), event["delta"].as_object())
                {
                    for (key, value) in delta {
                        whole.insert(key.clone(), value.clone());
                    }
                }
                if let Some(usage) = event["usage"].as_object() {
                    let whole = &mut message["usage"];
                    if !whole.is_object() {
                        *whole = Value::Object(Map::new());
                    }
                    for (key, value) in usage {
                        whole[key] = value.clone();
                    }
                }
            }
            _ => {}
        }
    }
    for (index, text) in inputs {
        if let Some(block) = message["content"].get_mut(index) {
            block["input"] = serde_json::from_str(&text).unwrap_or(Value::String(text));
        }
    }
    message
}

fn gemini(events: &[Value]) -> Value {
    let mut candidates: Vec<(u64, Value)> = Vec::new();
    let mut whole = Map::new();
    for event in events {
        for key in ["usageMetadata", "modelVersion", "responseId"] {
            if let Some(value) = event.get(key) {
                whole.insert(key.into(), value.clone());
            }
        }
        for candidate in event["candidates"].as_array().into_iter().flatten() {
            let index = candidate["index"].as_u64().unwrap_or(0);
            let at = match candidates.iter().position(|(i, _)| *i == index) {
                Some(at) => at,
                None => {
                    candidates.push((
                        index,
                        json!({"content": {"role": "model", "parts": []}, "index": index}),
                    ));
                    candidates.len() - 1
                }
            };
            let Some((_, held)) = candidates.get_mut(at) else {
                continue;
            };
            for part in candidate["content"]["parts"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let Some(parts) = held["content"]["parts"].as_array_mut() else {
                    continue;
                };
                // Text continues the last part of the same kind.
                let joins = |last: &Value| {
                    last.get("text").is_some()
                        && part.get("text").is_some()
                        && last.get("thought") == part.get("thought")
                        && part.get("thoughtSignature").is_none()
                };
                match parts.last_mut() {
                    Some(last) if joins(last) => {
                        append(&mut last["text"], part["text"].as_str().unwrap_or(""))
                    }
                    _ => parts.push(part.clone()),
                }
            }
            if let Some(reason) = candidate.get("finishReason") {
                held["finishReason"] = reason.clone();
            }
        }
    }
    candidates.sort_by_key(|(i, _)| *i);
    whole.insert(
        "candidates".into(),
        Value::Array(candidates.into_iter().map(|(_, c)| c).collect()),
    );
    Value::Object(whole)
}
