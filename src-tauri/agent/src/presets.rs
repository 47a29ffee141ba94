//! The providers Gantry ships, and the flags that say where each one's wire differs.
//!
//! Every preset speaks OpenAI's Chat Completions, but not all of it, and not only it:
//!
//! | preset | quirk | flag or handling |
//! |---|---|---|
//! | DeepSeek | thinking mode answers 400 unless the reasoning of an assistant message with tool calls is sent back | `replay_reasoning` |
//! | Mistral | 422 "Extra inputs are not permitted" for `stream_options` | `stream_usage` off |
//! | Groq | usage comes in `x_groq.usage`; unknown message fields are refused | `stream_usage` off, `x_groq.usage` read |
//! | Gemini | each function call carries `extra_content.google.thought_signature`, which must come back; errors arrive as an array | per-call fields kept; array errors read |
//! | Anthropic | its model list wants `x-api-key` and `anthropic-version` | [`ServerKind::Anthropic`] |
//! | Ollama | parallel calls all streamed with `index: 0`; the server-side window truncates silently | new id = new call; window asked |
//! | LM Studio, llama.cpp, vLLM | small models write tool calls as text; windows set at load | `text_tool_calls`; window asked |
//!
//! A saved provider takes the flags of the preset of its name, or of the kind its URL suggests,
//! unless it sets them itself. And whatever the flags say, a provider that answers a 4xx naming
//! `stream_options` is asked again at once without it, and not asked for usage again.

use serde::{Deserialize, Serialize};

use crate::local::ServerKind;
use crate::provider::ProviderConfig;

/// How a provider's wire differs from OpenAI's. The defaults are OpenAI's behaviour.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ProviderFlags {
    /// Ask for token usage in the stream (`stream_options.include_usage`). Off for servers that
    /// reject the field (Mistral).
    pub stream_usage: bool,
    /// Send the model's reasoning back (`reasoning_content`) on assistant messages that carry
    /// tool calls (DeepSeek's thinking mode requires it).
    pub replay_reasoning: bool,
    /// Recognise tool calls a model writes as text (`<tool_call>{…}</tool_call>`,
    /// `<function=…>`, a bare JSON object) when the turn offered tools, and run them as calls.
    pub text_tool_calls: bool,
    /// The model accepts images (`image_url` content parts). Off where the preset's models do
    /// not (DeepSeek, Groq's default, local servers until the user says so), so an image is
    /// refused with a message before sending instead of answered with a 400.
    pub images: bool,
}

impl Default for ProviderFlags {
    fn default() -> Self {
        Self {
            stream_usage: true,
            replay_reasoning: false,
            text_tool_calls: false,
            images: true,
        }
    }
}

impl ProviderFlags {
    /// The flags for a server of `kind`: text tool calls recognised on local servers.
    pub fn for_server(kind: ServerKind) -> Self {
        Self {
            text_tool_calls: kind.is_local(),
            images: !kind.is_local(),
            ..Self::default()
        }
    }
}

struct Preset {
    name: &'static str,
    base_url: &'static str,
    model: &'static str,
    key: Option<&'static str>,
    window: u32,
    server: ServerKind,
    stream_usage: bool,
    replay_reasoning: bool,
    images: bool,
}

impl Preset {
    const fn hosted(
        name: &'static str,
        base_url: &'static str,
        model: &'static str,
        key: &'static str,
        window: u32,
    ) -> Self {
        Self {
            name,
            base_url,
            model,
            key: Some(key),
            window,
            server: ServerKind::Other,
            stream_usage: true,
            replay_reasoning: false,
            images: true,
        }
    }

    const fn local(
        name: &'static str,
        base_url: &'static str,
        model: &'static str,
        window: u32,
        server: ServerKind,
    ) -> Self {
        Self {
            name,
            base_url,
            model,
            key: None,
            window,
            server,
            stream_usage: true,
            replay_reasoning: false,
            images: false,
        }
    }

    fn config(&self) -> ProviderConfig {
        ProviderConfig {
            flags: ProviderFlags {
                stream_usage: self.stream_usage,
                replay_reasoning: self.replay_reasoning,
                images: self.images,
                ..ProviderFlags::for_server(self.server)
            },
            server: self.server,
            ..ProviderConfig::new(self.name, self.base_url, self.model, self.key, self.window)
        }
    }
}

/// The shipped presets. Model names are starting points; the local ones assume a modest window
/// until the server says what it runs.
const PRESETS: [Preset; 12] = [
    Preset::hosted(
        "openai",
        "https://api.openai.com/v1",
        "gpt-4.1-mini",
        "OPENAI_API_KEY",
        1_047_576,
    ),
    Preset::hosted(
        "openrouter",
        "https://openrouter.ai/api/v1",
        "openai/gpt-4.1-mini",
        "OPENROUTER_API_KEY",
        1_047_576,
    ),
    Preset {
        replay_reasoning: true,
        images: false,
        ..Preset::hosted(
            "deepseek",
            "https://api.deepseek.com/v1",
            "deepseek-chat",
            "DEEPSEEK_API_KEY",
            131_072,
        )
    },
    Preset {
        stream_usage: false,
        ..Preset::hosted(
            "mistral",
            "https://api.mistral.ai/v1",
            "mistral-medium-latest",
            "MISTRAL_API_KEY",
            131_072,
        )
    },
    Preset {
        stream_usage: false,
        images: false,
        ..Preset::hosted(
            "groq",
            "https://api.groq.com/openai/v1",
            "llama-3.3-70b-versatile",
            "GROQ_API_KEY",
            131_072,
        )
    },
    Preset {
        images: false,
        ..Preset::hosted(
            "together",
            "https://api.together.xyz/v1",
            "Qwen/Qwen2.5-Coder-32B-Instruct",
            "TOGETHER_API_KEY",
            32_768,
        )
    },
    Preset::hosted(
        "gemini",
        "https://generativelanguage.googleapis.com/v1beta/openai",
        "gemini-2.5-flash",
        "GEMINI_API_KEY",
        1_048_576,
    ),
    Preset {
        server: ServerKind::Anthropic,
        ..Preset::hosted(
            "anthropic",
            "https://api.anthropic.com/v1",
            "claude-sonnet-4-5",
            "ANTHROPIC_API_KEY",
            200_000,
        )
    },
    Preset::local(
        "ollama",
        "http://localhost:11434/v1",
        "qwen2.5-coder:7b",
        8_192,
        ServerKind::Ollama,
    ),
    Preset::local(
        "lmstudio",
        "http://localhost:1234/v1",
        "qwen2.5-coder-7b-instruct",
        8_192,
        ServerKind::LmStudio,
    ),
    Preset::local(
        "llamacpp",
        "http://localhost:8080/v1",
        "default",
        8_192,
        ServerKind::LlamaCpp,
    ),
    Preset::local(
        "vllm",
        "http://localhost:8000/v1",
        "Qwen/Qwen2.5-Coder-7B-Instruct",
        32_768,
        ServerKind::Vllm,
    ),
];

/// Every shipped preset, in the order the settings list them.
pub(crate) fn shipped() -> Vec<ProviderConfig> {
    PRESETS.iter().map(Preset::config).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_carry_the_flags_of_their_quirks() {
        let preset = |name: &str| ProviderConfig::preset(name).unwrap();
        assert!(preset("deepseek").flags.replay_reasoning);
        assert!(!preset("mistral").flags.stream_usage);
        assert!(!preset("groq").flags.stream_usage);
        assert!(preset("openai").flags.stream_usage);
        for local in ["ollama", "lmstudio", "llamacpp", "vllm"] {
            assert!(preset(local).flags.text_tool_calls, "{local}");
            assert!(preset(local).server.is_local(), "{local}");
            assert_eq!(preset(local).api_key_env, None);
        }
        for hosted in ["openai", "mistral", "gemini", "anthropic", "together"] {
            assert!(!preset(hosted).flags.text_tool_calls, "{hosted}");
            assert!(preset(hosted).api_key_env.is_some(), "{hosted}");
        }
        assert_eq!(preset("anthropic").server, ServerKind::Anthropic);
        // Images go only where the preset's models take them.
        for vision in ["openai", "openrouter", "gemini", "anthropic", "mistral"] {
            assert!(preset(vision).flags.images, "{vision}");
        }
        for blind in ["deepseek", "groq", "together", "ollama", "vllm"] {
            assert!(!preset(blind).flags.images, "{blind}");
        }
        // Each local preset's URL is one its kind is detected from.
        for config in shipped().into_iter().filter(|c| c.server.is_local()) {
            assert_eq!(ServerKind::detect(&config.base_url), config.server);
        }
    }
}
