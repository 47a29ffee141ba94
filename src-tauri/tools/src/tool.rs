//! What a tool is.
//!
//! Two layers. [`Tool`] is the object-safe interface the [`crate::ToolManager`] works with; MCP
//! tools implement it directly. [`ToolFn`] is how Gantry's own tools are written: an argument
//! struct deriving `Deserialize + JsonSchema` and an async function, usually joined by the
//! [`macro@crate::tool`] attribute; its name, description and schema come from the types.

use std::future::Future;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::approval::{ApprovalScope, Preview};
use crate::coerce::ArgumentProblem;
use crate::context::ToolContext;
use crate::permission::PermissionLevel;
use crate::sandboxing::SandboxState;
use crate::schema::{first_paragraph, parameters_for, raw_schema_for};

/// What a tool gives back when it ran.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolOutput {
    /// What the model reads.
    pub text: String,
    /// True when the tool ran but the result is a failure the model should see as one (a
    /// command timing out, an MCP tool reporting `isError`); the text is shown as is.
    pub is_error: bool,
    /// True when the text was cut to keep the context small.
    pub truncated: bool,
    /// A unified diff of what the call changed.
    pub diff: Option<String>,
    /// How a command ran: in the OS sandbox (with or without network) or not.
    pub sandbox: Option<SandboxState>,
}

impl ToolOutput {
    /// A successful result with this text.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }

    /// A failed result whose text is shown to the model verbatim.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            is_error: true,
            ..Self::default()
        }
    }

    /// Marks the text as cut (or not).
    #[must_use]
    pub fn with_truncated(mut self, truncated: bool) -> Self {
        self.truncated = truncated;
        self
    }

    /// Says how the command ran (sandboxed or not).
    #[must_use]
    pub fn with_sandbox(mut self, sandbox: SandboxState) -> Self {
        self.sandbox = Some(sandbox);
        self
    }

    /// Attaches the diff of what the call changed.
    #[must_use]
    pub fn with_diff(mut self, diff: impl Into<String>) -> Self {
        self.diff = Some(diff.into());
        self
    }
}

impl From<String> for ToolOutput {
    fn from(text: String) -> Self {
        Self::text(text)
    }
}

impl From<&str> for ToolOutput {
    fn from(text: &str) -> Self {
        Self::text(text)
    }
}

/// A failure the model should read: the dispatcher shows it as `[error] {message}`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// An error with this message (no `[error]` prefix: the dispatcher adds it).
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// What a tool function returns.
pub type ToolResult = Result<ToolOutput, ToolError>;

/// Where a tool comes from, for grouping in lists and the UI.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ToolSource {
    /// One of Gantry's own tools.
    Builtin,
    /// A tool of a configured MCP server.
    Mcp {
        /// The server's name in the configuration.
        server: String,
    },
}

/// What the model and the gate know of a tool before calling it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The name the model calls it by (`^[a-zA-Z0-9_-]{1,64}$`).
    pub name: String,
    /// One paragraph for the model.
    pub description: String,
    /// How much harm a call can do.
    pub level: PermissionLevel,
    /// The cleaned JSON Schema of the arguments (an object schema).
    pub parameters: Value,
}

/// The interface the manager dispatches through. Implemented by [`TypedTool`] for Gantry's own
/// tools and by the MCP adapter for server tools.
pub trait Tool: Send + Sync + 'static {
    /// Its name, description, level and parameters.
    fn spec(&self) -> &ToolSpec;
    /// The name the model calls it by (`^[a-zA-Z0-9_-]{1,64}$`).
    fn name(&self) -> &str {
        &self.spec().name
    }
    /// One paragraph for the model.
    fn description(&self) -> &str {
        &self.spec().description
    }
    /// How much harm a call can do.
    fn level(&self) -> PermissionLevel {
        self.spec().level
    }
    /// The cleaned JSON Schema of the arguments (an object schema).
    fn parameters(&self) -> &Value {
        &self.spec().parameters
    }
    /// Where the tool comes from.
    fn source(&self) -> ToolSource {
        ToolSource::Builtin
    }
    /// True for a tool that talks to the user while it runs (ask_user): the loop never runs it
    /// beside other calls, whatever its level.
    fn interactive(&self) -> bool {
        false
    }
    /// True for a tool that runs commands in the OS sandbox (run_command): when the system has
    /// none, every call asks and can only be allowed once.
    fn sandboxed(&self) -> bool {
        false
    }
    /// True for a tool that reports each file it is about to replace to the call's
    /// [`crate::CallChanges`] (write_file, edit_file); the manager snapshots the project around
    /// any other call that may change files (run_command, MCP tools), to find what it changed.
    fn records_changes(&self) -> bool {
        false
    }
    /// Turns coerced arguments into a call ready to check and run, or says what is wrong.
    fn prepare(&self, arguments: Value) -> Result<Box<dyn PreparedCall>, Vec<ArgumentProblem>>;

    /// The Chat Completions function schema:
    /// `{"type":"function","function":{"name","description","parameters"}}`.
    fn to_openai_schema(&self) -> Value {
        json!({
            "type": "function",
            "function": {
                "name": self.name(),
                "description": self.description(),
                "parameters": self.parameters(),
            }
        })
    }
}

/// A call with validated arguments, not yet run.
pub trait PreparedCall: Send + Sync {
    /// The validated arguments as JSON (shown to the approver, kept in the audit log).
    fn arguments(&self) -> &Value;
    /// What "allow for this session" (or a rule) would cover for this call. Computed by Gantry
    /// from the tool, the arguments and the project as it is now (a path is resolved, the
    /// sandbox's availability is known), never taken from the model.
    fn scope(&self, ctx: &ToolContext) -> ApprovalScope;
    /// What the call would do, computed without changing anything.
    fn preview<'a>(&'a self, ctx: &'a ToolContext) -> BoxFuture<'a, Option<Preview>>;
    /// Runs the call.
    fn run(self: Box<Self>, ctx: ToolContext) -> BoxFuture<'static, ToolResult>;
}

/// A tool written as a typed async function. Usually implemented by the [`macro@crate::tool`]
/// attribute; implement it by hand for tools that carry state.
pub trait ToolFn: Send + Sync + Sized + 'static {
    /// The argument struct; its schema is the tool's parameters and its field docs their
    /// descriptions.
    type Args: DeserializeOwned + JsonSchema + Send + Sync + 'static;
    /// The tool's name (the function's name by default).
    const NAME: &'static str;
    /// The function's whole doc comment; the first paragraph becomes the description.
    const DOC: &'static str = "";
    /// An explicit description, overriding the doc comment.
    const DESCRIPTION: Option<&'static str> = None;
    /// The permission level (SAFE by default).
    const LEVEL: PermissionLevel = PermissionLevel::Safe;
    /// Whether the tool talks to the user while it runs (see [`Tool::interactive`]).
    const INTERACTIVE: bool = false;
    /// Whether the tool runs commands in the OS sandbox (see [`Tool::sandboxed`]).
    const SANDBOXED: bool = false;
    /// Whether the tool reports its own file changes (see [`Tool::records_changes`]).
    const RECORDS_CHANGES: bool = false;

    /// Runs the tool.
    fn call<'a>(
        &'a self,
        ctx: &'a ToolContext,
        args: Self::Args,
    ) -> impl Future<Output = ToolResult> + Send + 'a;

    /// What allowing this call for the session covers (the whole tool by default).
    fn scope(&self, _ctx: &ToolContext, _args: &Self::Args) -> ApprovalScope {
        ApprovalScope::WholeTool
    }

    /// What the call would do, for the approver (nothing by default).
    fn preview<'a>(
        &'a self,
        _ctx: &'a ToolContext,
        _args: &'a Self::Args,
    ) -> impl Future<Output = Option<Preview>> + Send + 'a {
        std::future::ready(None)
    }
}

/// A [`ToolFn`] with its name, description, level and schema worked out, as registered.
pub struct TypedTool<T: ToolFn> {
    inner: Arc<T>,
    spec: ToolSpec,
}

impl<T: ToolFn> TypedTool<T> {
    /// Derives the tool's metadata from `T`.
    pub fn new(tool: T) -> Self {
        let description = match T::DESCRIPTION {
            Some(explicit) => explicit.to_owned(),
            None => Some(first_paragraph(T::DOC))
                .filter(|d| !d.is_empty())
                .unwrap_or_else(args_doc::<T::Args>),
        };
        Self {
            inner: Arc::new(tool),
            spec: ToolSpec {
                name: T::NAME.to_owned(),
                description,
                level: T::LEVEL,
                parameters: parameters_for::<T::Args>(),
            },
        }
    }

    /// The same tool under another name.
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.spec.name = name.into();
        self
    }

    /// The same tool with another description.
    #[must_use]
    pub fn described(mut self, description: impl Into<String>) -> Self {
        self.spec.description = description.into();
        self
    }

    /// The same tool at another permission level.
    #[must_use]
    pub fn with_level(mut self, level: PermissionLevel) -> Self {
        self.spec.level = level;
        self
    }
}

/// The doc comment of the argument struct, as schemars recorded it: the fallback description.
fn args_doc<A: JsonSchema>() -> String {
    let raw = raw_schema_for::<A>();
    // schemars splits "Summary.\n\nMore." into a title and a description.
    let text = raw
        .get("title")
        .or_else(|| raw.get("description"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    first_paragraph(text)
}

impl<T: ToolFn> Tool for TypedTool<T> {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn interactive(&self) -> bool {
        T::INTERACTIVE
    }

    fn sandboxed(&self) -> bool {
        T::SANDBOXED
    }

    fn records_changes(&self) -> bool {
        T::RECORDS_CHANGES
    }

    fn prepare(&self, arguments: Value) -> Result<Box<dyn PreparedCall>, Vec<ArgumentProblem>> {
        match T::Args::deserialize(&arguments) {
            Ok(args) => Ok(Box::new(TypedCall {
                tool: Arc::clone(&self.inner),
                args,
                arguments,
            })),
            Err(error) => Err(vec![ArgumentProblem {
                field: String::new(),
                expected: "arguments this tool accepts".into(),
                received: format!("something it could not read ({error})"),
            }]),
        }
    }
}

struct TypedCall<T: ToolFn> {
    tool: Arc<T>,
    args: T::Args,
    arguments: Value,
}

impl<T: ToolFn> PreparedCall for TypedCall<T> {
    fn arguments(&self) -> &Value {
        &self.arguments
    }

    fn scope(&self, ctx: &ToolContext) -> ApprovalScope {
        self.tool.scope(ctx, &self.args)
    }

    fn preview<'a>(&'a self, ctx: &'a ToolContext) -> BoxFuture<'a, Option<Preview>> {
        self.tool.preview(ctx, &self.args).boxed()
    }

    fn run(self: Box<Self>, ctx: ToolContext) -> BoxFuture<'static, ToolResult> {
        let TypedCall { tool, args, .. } = *self;
        async move { tool.call(&ctx, args).await }.boxed()
    }
}

/// Anything the manager can register.
pub trait IntoTool {
    /// The tool, ready for the registry.
    fn into_tool(self) -> Arc<dyn Tool>;
}

impl<T: ToolFn> IntoTool for T {
    fn into_tool(self) -> Arc<dyn Tool> {
        Arc::new(TypedTool::new(self))
    }
}

impl<T: ToolFn> IntoTool for TypedTool<T> {
    fn into_tool(self) -> Arc<dyn Tool> {
        Arc::new(self)
    }
}

impl IntoTool for Arc<dyn Tool> {
    fn into_tool(self) -> Arc<dyn Tool> {
        self
    }
}
