//! A request in one provider's API form read into a neutral one and written
//! in another's: the subset the gateway translates (docs/TRANSLATION.md,
//! "The gateway"): the system prompt, messages of text and images (by URL
//! or base64), tool calls and tool results, tools and the tool choice, the
//! token limit, temperature, stop sequences and `stream`.

use llmstream::providers::Provider;
use serde_json::{json, Map, Value};

/// Who said a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

/// A piece of a message.
#[derive(Clone, Debug, PartialEq)]
pub enum Content {
    Text(String),
    /// An image by URL (`data:` URLs included).
    ImageUrl(String),
    /// An image's bytes, base64, with their media type.
    ImageData {
        media_type: String,
        data: String,
    },
    /// A call the assistant made.
    ToolCall {
        id: String,
        name: String,
        arguments: Value,
    },
    /// The result of a call, as text.
    ToolResult {
        id: String,
        content: String,
    },
}

/// Which tool the model may or must call.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolChoice {
    Auto,
    None,
    Required,
    Tool(String),
}

/// A function the model may call.
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: Option<String>,
    pub parameters: Value,
}

impl Tool {
    /// A function declaration: its `name`, `description`, and its schema
    /// under the first of `schema` it has (an empty object schema when
    /// none).
    fn read(declaration: &Value, schema: &[&str]) -> Tool {
        Tool {
            name: declaration["name"].as_str().unwrap_or_default().to_string(),
            description: declaration["description"].as_str().map(str::to_string),
            parameters: schema
                .iter()
                .find_map(|key| declaration.get(*key))
                .cloned()
                .unwrap_or(json!({"type": "object"})),
        }
    }
}

/// The neutral request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Request {
    pub model: String,
    pub system: Option<String>,
    pub messages: Vec<(Role, Vec<Content>)>,
    pub tools: Vec<Tool>,
    pub tool_choice: Option<ToolChoice>,
    pub max_tokens: Option<u64>,
    pub temperature: Option<f64>,
    pub stop: Vec<String>,
    pub stream: bool,
}

/// Why a request body could not be read: a 400 in the served API's form.
#[derive(Debug, PartialEq)]
pub struct BadRequest(pub String);

fn bad(what: impl Into<String>) -> BadRequest {
    BadRequest(what.into())
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn strings(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// Arguments as a value: a JSON text parsed (an invalid one kept as text).
fn arguments(value: Option<&Value>) -> Value {
    match value {
        Some(Value::String(text)) => {
            serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone()))
        }
        Some(value) => value.clone(),
        None => json!({}),
    }
}

/// Arguments as the JSON text OpenAI's APIs carry.
fn arguments_text(arguments: &Value) -> String {
    match arguments {
        Value::String(text) => text.clone(),
        value => value.to_string(),
    }
}

impl Request {
    /// Reads a body in `api`'s form. Gemini names the model and whether it
    /// streams in the URL: `model` and `stream` are given for it.
    pub fn read(
        api: Provider,
        body: &[u8],
        model: Option<&str>,
        stream: bool,
    ) -> Result<Request, BadRequest> {
        let body: Value =
            serde_json::from_slice(body).map_err(|e| bad(format!("the body is not JSON: {e}")))?;
        if !body.is_object() {
            return Err(bad("the body is not a JSON object"));
        }
        match api {
            Provider::OpenAiChat => read_chat(&body),
            Provider::OpenAiResponses => read_responses(&body),
            Provider::Anthropic => read_anthropic(&body),
            Provider::Gemini => read_gemini(&body, model.unwrap_or_default(), stream),
        }
    }

    /// The body in `api`'s form, asking for a stream.
    pub fn write(&self, api: Provider) -> Value {
        match api {
            Provider::OpenAiChat => self.write_chat(),
            Provider::OpenAiResponses => self.write_responses(),
            Provider::Anthropic => self.write_anthropic(),
            Provider::Gemini => self.write_gemini(),
        }
    }

    /// The name of the tool a call id belongs to (Gemini's function
    /// responses name the function, not the call).
    fn tool_name(&self, id: &str) -> String {
        self.messages
            .iter()
            .flat_map(|(_, content)| content)
            .find_map(|c| match c {
                Content::ToolCall { id: i, name, .. } if i == id => Some(name.clone()),
                _ => None,
            })
            .unwrap_or_default()
    }

    fn write_chat(&self) -> Value {
        let mut messages = Vec::new();
        if let Some(system) = &self.system {
            messages.push(json!({"role": "system", "content": system}));
        }
        for (role, content) in &self.messages {
            let mut parts = Vec::new();
            let mut calls = Vec::new();
            for c in content {
                match c {
                    Content::Text(text) => parts.push(json!({"type": "text", "text": text})),
                    Content::ImageUrl(url) => {
                        parts.push(json!({"type": "image_url", "image_url": {"url": url}}))
                    }
                    Content::ImageData { media_type, data } => parts.push(json!({
                        "type": "image_url",
                        "image_url": {"url": format!("data:{media_type};base64,{data}")}
                    })),
                    Content::ToolCall {
                        id,
                        name,
                        arguments,
                    } => calls.push(json!({
                        "id": id, "type": "function",
                        "function": {"name": name, "arguments": arguments_text(arguments)}
                    })),
                    Content::ToolResult { id, content } => messages.push(json!({
                        "role": "tool", "tool_call_id": id, "content": content
                    })),
                }
            }
            let role = match role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            if parts.is_empty() && calls.is_empty() {
                continue;
            }
            let mut message = Map::new();
            message.insert("role".into(), json!(role));
            message.insert(
                "content".into(),
                match parts.is_empty() {
                    true => Value::Null,
                    false => Value::Array(parts),
                },
            );
            if !calls.is_empty() {
                message.insert("tool_calls".into(), Value::Array(calls));
            }
            messages.push(Value::Object(message));
        }
        let mut body = Map::new();
        body.insert("model".into(), json!(self.model));
        body.insert("messages".into(), Value::Array(messages));
        if !self.tools.is_empty() {
            let tools: Vec<Value> = self
                .tools
                .iter()
                .map(|t| json!({"type": "function", "function": tool_json(t, "parameters")}))
                .collect();
            body.insert("tools".into(), Value::Array(tools));
        }
        if let Some(choice) = &self.tool_choice {
            body.insert(
                "tool_choice".into(),
                match choice {
                    ToolChoice::Auto => json!("auto"),
                    ToolChoice::None => json!("none"),
                    ToolChoice::Required => json!("required"),
                    ToolChoice::Tool(name) => {
                        json!({"type": "function", "function": {"name": name}})
                    }
                },
            );
        }
        if let Some(n) = self.max_tokens {
            body.insert("max_tokens".into(), json!(n));
        }
        if let Some(t) = self.temperature {
            body.insert("temperature".into(), json!(t));
        }
        if !self.stop.is_empty() {
            body.insert("stop".into(), json!(self.stop));
        }
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
        Value::Object(body)
    }

    fn write_responses(&self) -> Value {
        let mut input = Vec::new();
        for (role, content) in &self.messages {
            let mut parts = Vec::new();
            for c in content {
                match c {
                    Content::Text(text) => parts.push(match role {
                        Role::User => json!({"type": "input_text", "text": text}),
                        Role::Assistant => json!({"type": "output_text", "text": text}),
                    }),
                    Content::ImageUrl(url) => {
                        parts.push(json!({"type": "input_image", "image_url": url}))
                    }
                    Content::ImageData { media_type, data } => parts.push(json!({
                        "type": "input_image",
                        "image_url": format!("data:{media_type};base64,{data}")
                    })),
                    Content::ToolCall {
                        id,
                        name,
                        arguments,
                    } => input.push(json!({
                        "type": "function_call", "call_id": id, "name": name,
                        "arguments": arguments_text(arguments)
                    })),
                    Content::ToolResult { id, content } => input.push(json!({
                        "type": "function_call_output", "call_id": id, "output": content
                    })),
                }
            }
            if !parts.is_empty() {
                let role = match role {
                    Role::User => "user",
                    Role::Assistant => "assistant",
                };
                input.push(json!({"role": role, "content": parts}));
            }
        }
        let mut body = Map::new();
        body.insert("model".into(), json!(self.model));
        if let Some(system) = &self.system {
            body.insert("instructions".into(), json!(system));
        }
        body.insert("input".into(), Value::Array(input));
        if !self.tools.is_empty() {
            let tools: Vec<Value> = self
                .tools
                .iter()
                .map(|t| {
                    let mut tool = tool_json(t, "parameters");
                    if let Value::Object(map) = &mut tool {
                        map.insert("type".into(), json!("function"));
                    }
                    tool
                })
                .collect();
            body.insert("tools".into(), Value::Array(tools));
        }
        if let Some(choice) = &self.tool_choice {
            body.insert(
                "tool_choice".into(),
                match choice {
                    ToolChoice::Auto => json!("auto"),
                    ToolChoice::None => json!("none"),
                    ToolChoice::Required => json!("required"),
                    ToolChoice::Tool(name) => json!({"type": "function", "name": name}),
                },
            );
        }
        if let Some(n) = self.max_tokens {
            body.insert("max_output_tokens".into(), json!(n));
        }
        if let Some(t) = self.temperature {
            body.insert("temperature".into(), json!(t));
        }
        body.insert("stream".into(), json!(true));
        Value::Object(body)
    }

    fn write_anthropic(&self) -> Value {
        let mut messages: Vec<Value> = Vec::new();
        for (role, content) in &self.messages {
            let role = match role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            let mut blocks = Vec::new();
            for c in content {
                blocks.push(match c {
                    Content::Text(text) => json!({"type": "text", "text": text}),
                    Content::ImageUrl(url) => match data_url(url) {
                        Some((media_type, data)) => json!({"type": "image", "source": {
                            "type": "base64", "media_type": media_type, "data": data}}),
                        None => json!({"type": "image", "source": {"type": "url", "url": url}}),
                    },
                    Content::ImageData { media_type, data } => json!({"type": "image", "source": {
                        "type": "base64", "media_type": media_type, "data": data}}),
                    Content::ToolCall {
                        id,
                        name,
                        arguments,
                    } => json!({
                        "type": "tool_use", "id": id, "name": name, "input": arguments}),
                    Content::ToolResult { id, content } => json!({
                        "type": "tool_result", "tool_use_id": id, "content": content}),
                });
            }
            // Tool results are a user turn in Anthropic's API.
            let role = match content
                .iter()
                .all(|c| matches!(c, Content::ToolResult { .. }))
            {
                true if !content.is_empty() => "user",
                _ => role,
            };
            match messages.last_mut() {
                Some(last) if last["role"] == role => {
                    if let Some(Value::Array(existing)) = last.get_mut("content") {
                        existing.extend(blocks);
                    }
                }
                _ => messages.push(json!({"role": role, "content": blocks})),
            }
        }
        let mut body = Map::new();
        body.insert("model".into(), json!(self.model));
        if let Some(system) = &self.system {
            body.insert("system".into(), json!(system));
        }
        body.insert("messages".into(), Value::Array(messages));
        // Anthropic requires a token limit.
        body.insert("max_tokens".into(), json!(self.max_tokens.unwrap_or(4096)));
        if !self.tools.is_empty() {
            let tools: Vec<Value> = self
                .tools
                .iter()
                .map(|t| tool_json(t, "input_schema"))
                .collect();
            body.insert("tools".into(), Value::Array(tools));
        }
        if let Some(choice) = &self.tool_choice {
            body.insert(
                "tool_choice".into(),
                match choice {
                    ToolChoice::Auto => json!({"type": "auto"}),
                    ToolChoice::None => json!({"type": "none"}),
                    ToolChoice::Required => json!({"type": "any"}),
                    ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
                },
            );
        }
        if let Some(t) = self.temperature {
            body.insert("temperature".into(), json!(t));
        }
        if !self.stop.is_empty() {
            body.insert("stop_sequences".into(), json!(self.stop));
        }
        body.insert("stream".into(), json!(true));
        Value::Object(body)
    }

    fn write_gemini(&self) -> Value {
        let mut contents = Vec::new();
        for (role, content) in &self.messages {
            let mut parts = Vec::new();
            for c in content {
                parts.push(match c {
                    Content::Text(text) => json!({"text": text}),
                    Content::ImageUrl(url) => match data_url(url) {
                        Some((media_type, data)) => {
                            json!({"inlineData": {"mimeType": media_type, "data": data}})
                        }
                        None => json!({"fileData": {"fileUri": url}}),
                    },
                    Content::ImageData { media_type, data } => {
                        json!({"inlineData": {"mimeType": media_type, "data": data}})
                    }
                    Content::ToolCall {
                        id,
                        name,
                        arguments,
                    } => {
                        json!({"functionCall": {"id": id, "name": name, "args": arguments}})
                    }
                    Content::ToolResult { id, content } => json!({"functionResponse": {
                        "id": id, "name": self.tool_name(id),
                        "response": {"content": content}}}),
                });
            }
            let role = match role {
                Role::User => "user",
                Role::Assistant => "model",
            };
            contents.push(json!({"role": role, "parts": parts}));
        }
        let mut body = Map::new();
        if let Some(system) = &self.system {
            body.insert(
                "systemInstruction".into(),
                json!({"parts": [{"text": system}]}),
            );
        }
        body.insert("contents".into(), Value::Array(contents));
        if !self.tools.is_empty() {
            let declarations: Vec<Value> = self
                .tools
                .iter()
                .map(|t| tool_json(t, "parameters"))
                .collect();
            body.insert(
                "tools".into(),
                json!([{"functionDeclarations": declarations}]),
            );
        }
        if let Some(choice) = &self.tool_choice {
            let config = match choice {
                ToolChoice::Auto => json!({"mode": "AUTO"}),
                ToolChoice::None => json!({"mode": "NONE"}),
                ToolChoice::Required => json!({"mode": "ANY"}),
                ToolChoice::Tool(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
            };
            body.insert(
                "toolConfig".into(),
                json!({"functionCallingConfig": config}),
            );
        }
        let mut generation = Map::new();
        if let Some(n) = self.max_tokens {
            generation.insert("maxOutputTokens".into(), json!(n));
        }
        if let Some(t) = self.temperature {
            generation.insert("temperature".into(), json!(t));
        }
        if !self.stop.is_empty() {
            generation.insert("stopSequences".into(), json!(self.stop));
        }
        if !generation.is_empty() {
            body.insert("generationConfig".into(), Value::Object(generation));
        }
        Value::Object(body)
    }
}

fn tool_json(tool: &Tool, schema_key: &str) -> Value {
    let mut map = Map::new();
    map.insert("name".into(), json!(tool.name));
    if let Some(description) = &tool.description {
        map.insert("description".into(), json!(description));
    }
    map.insert(schema_key.into(), tool.parameters.clone());
    Value::Object(map)
}

/// `data:<type>;base64,<data>` split in two.
fn data_url(url: &str) -> Option<(String, String)> {
    let rest = url.strip_prefix("data:")?;
    let (media_type, data) = rest.split_once(";base64,")?;
    Some((media_type.to_string(), data.to_string()))
}

fn image_from_url(url: &str) -> Content {
    match data_url(url) {
        Some((media_type, data)) => Content::ImageData { media_type, data },
        None => Content::ImageUrl(url.to_string()),
    }
}

fn read_chat(body: &Value) -> Result<Request, BadRequest> {
    let mut request = common(body);
    let messages = body["messages"]
        .as_array()
        .ok_or_else(|| bad("`messages` must be an array"))?;
    let mut system = Vec::new();
    for message in messages {
        let role = message["role"].as_str().unwrap_or("user");
        let mut content = Vec::new();
        match &message["content"] {
            Value::String(text) => content.push(Content::Text(text.clone())),
            Value::Array(parts) => {
                for part in parts {
                    match part["type"].as_str() {
                        Some("image_url") => {
                            let url = part["image_url"]["url"].as_str().unwrap_or_default();
                            content.push(image_from_url(url));
                        }
                        _ => content.push(Content::Text(text_of(&part["text"]))),
                    }
                }
            }
            _ => {}
        }
        for call in message["tool_calls"].as_array().into_iter().flatten() {
            content.push(Content::ToolCall {
                id: call["id"].as_str().unwrap_or_default().to_string(),
                name: call["function"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                arguments: arguments(call["function"].get("arguments")),
            });
        }
        match role {
            "system" | "developer" => system.push(text_of(&message["content"])),
            "tool" => request.messages.push((
                Role::User,
                vec![Content::ToolResult {
                    id: message["tool_call_id"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                    content: text_of(&message["content"]),
                }],
            )),
            "assistant" => request.messages.push((Role::Assistant, content)),
            _ => request.messages.push((Role::User, content)),
        }
    }
    if !system.is_empty() {
        request.system = Some(system.join("\n"));
    }
    for tool in body["tools"].as_array().into_iter().flatten() {
        let function = &tool["function"];
        request.tools.push(Tool::read(function, &["parameters"]));
    }
    request.tool_choice = match &body["tool_choice"] {
        Value::String(s) => openai_choice(s),
        Value::Object(o) => o
            .get("function")
            .and_then(|f| f["name"].as_str())
            .map(|n| ToolChoice::Tool(n.to_string())),
        _ => None,
    };
    request.max_tokens = body["max_completion_tokens"]
        .as_u64()
        .or_else(|| body["max_tokens"].as_u64());
    request.stop = strings(body.get("stop"));
    Ok(request)
}

fn openai_choice(word: &str) -> Option<ToolChoice> {
    match word {
        "auto" => Some(ToolChoice::Auto),
        "none" => Some(ToolChoice::None),
        "required" => Some(ToolChoice::Required),
        _ => None,
    }
}

/// The members every API names alike.
fn common(body: &Value) -> Request {
    Request {
        model: body["model"].as_str().unwrap_or_default().to_string(),
        temperature: body["temperature"].as_f64(),
        stream: body["stream"].as_bool().unwrap_or(false),
        ..Request::default()
    }
}

fn read_responses(body: &Value) -> Result<Request, BadRequest> {
    let mut request = common(body);
    request.system = body["instructions"].as_str().map(str::to_string);
    match &body["input"] {
        Value::String(text) => request
            .messages
            .push((Role::User, vec![Content::Text(text.clone())])),
        Value::Array(items) => {
            for item in items {
                match item["type"].as_str() {
                    Some("function_call") => request.messages.push((
                        Role::Assistant,
                        vec![Content::ToolCall {
                            id: item["call_id"].as_str().unwrap_or_default().to_string(),
                            name: item["name"].as_str().unwrap_or_default().to_string(),
                            arguments: arguments(item.get("arguments")),
                        }],
                    )),
                    Some("function_call_output") => request.messages.push((
                        Role::User,
                        vec![Content::ToolResult {
                            id: item["call_id"].as_str().unwrap_or_default().to_string(),
                            content: text_of(&item["output"]),
                        }],
                    )),
                    _ => {
                        let role = item["role"].as_str().unwrap_or("user");
                        let mut content = Vec::new();
                        match &item["content"] {
                            Value::String(text) => content.push(Content::Text(text.clone())),
                            Value::Array(parts) => {
                                for part in parts {
                                    match part["type"].as_str() {
                                        Some("input_image") => content.push(image_from_url(
                                            part["image_url"].as_str().unwrap_or_default(),
                                        )),
                                        _ => content.push(Content::Text(text_of(&part["text"]))),
                                    }
                                }
                            }
                            _ => {}
                        }
                        match role {
                            "system" | "developer" => {
                                let text = text_of(&item["content"]);
                                request.system = Some(match request.system.take() {
                                    Some(s) => format!("{s}\n{text}"),
                                    None => text,
                                });
                            }
                            "assistant" => request.messages.push((Role::Assistant, content)),
                            _ => request.messages.push((Role::User, content)),
                        }
                    }
                }
            }
        }
        _ => return Err(bad("`input` must be a string or an array")),
    }
    for tool in body["tools"].as_array().into_iter().flatten() {
        if tool["type"] != "function" {
            continue;
        }
        request.tools.push(Tool::read(tool, &["parameters"]));
    }
    request.tool_choice = match &body["tool_choice"] {
        Value::String(s) => openai_choice(s),
        Value::Object(o) => o
            .get("name")
            .and_then(Value::as_str)
            .map(|n| ToolChoice::Tool(n.to_string())),
        _ => None,
    };
    request.max_tokens = body["max_output_tokens"].as_u64();
    Ok(request)
}

fn read_anthropic(body: &Value) -> Result<Request, BadRequest> {
    let mut request = common(body);
    request.system = match &body["system"] {
        Value::Null => None,
        system => Some(text_of(system)),
    };
    let messages = body["messages"]
        .as_array()
        .ok_or_else(|| bad("`messages` must be an array"))?;
    for message in messages {
        let role = match message["role"].as_str() {
            Some("assistant") => Role::Assistant,
            _ => Role::User,
        };
        let mut content = Vec::new();
        match &message["content"] {
            Value::String(text) => content.push(Content::Text(text.clone())),
            Value::Array(blocks) => {
                for block in blocks {
                    match block["type"].as_str() {
                        Some("image") => {
                            let source = &block["source"];
                            content.push(match source["type"].as_str() {
                                Some("base64") => Content::ImageData {
                                    media_type: source["media_type"]
                                        .as_str()
                                        .unwrap_or_default()
                                        .to_string(),
                                    data: source["data"].as_str().unwrap_or_default().to_string(),
                                },
                                _ => Content::ImageUrl(
                                    source["url"].as_str().unwrap_or_default().to_string(),
                                ),
                            });
                        }
                        Some("tool_use") => content.push(Content::ToolCall {
                            id: block["id"].as_str().unwrap_or_default().to_string(),
                            name: block["name"].as_str().unwrap_or_default().to_string(),
                            arguments: block.get("input").cloned().unwrap_or(json!({})),
                        }),
                        Some("tool_result") => content.push(Content::ToolResult {
                            id: block["tool_use_id"]
                                .as_str()
                                .unwrap_or_default()
                                .to_string(),
                            content: text_of(&block["content"]),
                        }),
                        _ => content.push(Content::Text(text_of(&block["text"]))),
                    }
                }
            }
            _ => return Err(bad("a message's `content` must be a string or an array")),
        }
        request.messages.push((role, content));
    }
    for tool in body["tools"].as_array().into_iter().flatten() {
        request.tools.push(Tool::read(tool, &["input_schema"]));
    }
    request.tool_choice = match body["tool_choice"]["type"].as_str() {
        Some("auto") => Some(ToolChoice::Auto),
        Some("none") => Some(ToolChoice::None),
        Some("any") => Some(ToolChoice::Required),
        Some("tool") => body["tool_choice"]["name"]
            .as_str()
            .map(|n| ToolChoice::Tool(n.to_string())),
        _ => None,
    };
    request.max_tokens = body["max_tokens"].as_u64();
    request.stop = strings(body.get("stop_sequences"));
    Ok(request)
}

fn read_gemini(body: &Value, model: &str, stream: bool) -> Result<Request, BadRequest> {
    let mut request = Request {
        model: model.to_string(),
        stream,
        ..Request::default()
    };
    if let Some(parts) = body["systemInstruction"]["parts"].as_array() {
        request.system = Some(text_of(&Value::Array(parts.clone())));
    }
    let contents = body["contents"]
        .as_array()
        .ok_or_else(|| bad("`contents` must be an array"))?;
    for item in contents {
        let role = match item["role"].as_str() {
            Some("model") => Role::Assistant,
            _ => Role::User,
        };
        let mut content = Vec::new();
        for part in item["parts"].as_array().into_iter().flatten() {
            if let Some(text) = part["text"].as_str() {
                content.push(Content::Text(text.to_string()));
            } else if let Some(data) = part.get("inlineData") {
                content.push(Content::ImageData {
                    media_type: data["mimeType"].as_str().unwrap_or_default().to_string(),
                    data: data["data"].as_str().unwrap_or_default().to_string(),
                });
            } else if let Some(file) = part.get("fileData") {
                content.push(Content::ImageUrl(
                    file["fileUri"].as_str().unwrap_or_default().to_string(),
                ));
            } else if let Some(call) = part.get("functionCall") {
                let name = call["name"].as_str().unwrap_or_default().to_string();
                content.push(Content::ToolCall {
                    id: call["id"]
                        .as_str()
                        .map_or_else(|| name.clone(), str::to_string),
                    name,
                    arguments: call.get("args").cloned().unwrap_or(json!({})),
                });
            } else if let Some(response) = part.get("functionResponse") {
                let name = response["name"].as_str().unwrap_or_default();
                let output = &response["response"];
                content.push(Content::ToolResult {
                    id: response["id"].as_str().unwrap_or(name).to_string(),
                    content: match output.get("content").or_else(|| output.get("result")) {
                        Some(Value::String(text)) => text.clone(),
                        _ => output.to_string(),
                    },
                });
            }
        }
        request.messages.push((role, content));
    }
    for tool in body["tools"].as_array().into_iter().flatten() {
        for declaration in tool["functionDeclarations"]
            .as_array()
            .into_iter()
            .flatten()
        {
            request.tools.push(Tool::read(
                declaration,
                &["parameters", "parametersJsonSchema"],
            ));
        }
    }
    let config = &body["toolConfig"]["functionCallingConfig"];
    request.tool_choice = match config["mode"].as_str() {
        Some("AUTO") => Some(ToolChoice::Auto),
        Some("NONE") => Some(ToolChoice::None),
        Some("ANY") => match config["allowedFunctionNames"].as_array().map(Vec::as_slice) {
            Some([Value::String(name)]) => Some(ToolChoice::Tool(name.clone())),
            _ => Some(ToolChoice::Required),
        },
        _ => None,
    };
    let generation = &body["generationConfig"];
    request.max_tokens = generation["maxOutputTokens"].as_u64();
    request.temperature = generation["temperature"].as_f64();
    request.stop = strings(generation.get("stopSequences"));
    Ok(request)
}
