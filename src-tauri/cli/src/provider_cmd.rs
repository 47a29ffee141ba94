//! `gantry-cli provider set | use | key | list | remove`: model providers and their API keys.
//!
//! Settings go to Gantry's database; keys go to the OS keychain only, read from the terminal
//! without echo (or one line of piped stdin), and are never printed.

use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use gantry_engine::providers::settings::ACTIVE_PROVIDER;
use gantry_store::{FlagSettings, Provider, ProviderConfig, Secret, SecretError, Secrets, Store};
use serde::Serialize;

use crate::CliError;
use crate::state::{open_store, store_error};
use crate::table;

/// Model providers and their API keys.
#[derive(Debug, Subcommand)]
pub(crate) enum ProviderCommand {
    /// Add a provider or change its settings.
    Set {
        /// The provider's name (`openai`, `local`, ...); also its keychain account.
        name: String,
        /// The OpenAI-compatible API's base URL.
        #[arg(long, value_name = "URL")]
        base_url: String,
        /// The model to use.
        #[arg(long, value_name = "M")]
        model: String,
        /// The environment variable that holds the key when the keychain is unavailable
        /// (default: NAME_API_KEY, or the provider's current one).
        #[arg(long, value_name = "VAR")]
        api_key_env: Option<String>,
        /// The model's context window in tokens.
        #[arg(long, value_name = "TOKENS")]
        context_window: Option<u32>,
        /// Ask for token usage in the stream (`stream_options`); off for servers that refuse
        /// it. Default: the preset's (or on).
        #[arg(long, value_name = "BOOL")]
        stream_usage: Option<bool>,
        /// Send the model's reasoning back on messages with tool calls (DeepSeek's thinking
        /// mode needs it). Default: the preset's (or off).
        #[arg(long, value_name = "BOOL")]
        replay_reasoning: Option<bool>,
        /// Recognise tool calls the model writes as text. Default: on for local servers.
        #[arg(long, value_name = "BOOL")]
        text_tool_calls: Option<bool>,
        /// The model accepts images. Default: the preset's (off for local servers).
        #[arg(long, value_name = "BOOL")]
        images: Option<bool>,
    },
    /// Make a provider (saved or a preset) the one `chat` and the app use by default.
    Use {
        /// The provider's name.
        name: String,
    },
    /// Store the provider's API key in the OS keychain, read from stdin without echo.
    Key {
        /// The provider's name.
        name: String,
        /// Delete the stored key instead.
        #[arg(long)]
        delete: bool,
    },
    /// List providers and where their keys are (never the keys).
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Forget a provider and delete its key from the keychain.
    Remove {
        /// The provider's name.
        name: String,
    },
}

/// Runs one `provider` command.
pub(crate) async fn run(command: ProviderCommand) -> Result<ExitCode, CliError> {
    let store = open_store().await?;
    match command {
        ProviderCommand::Set {
            name,
            base_url,
            model,
            api_key_env,
            context_window,
            stream_usage,
            replay_reasoning,
            text_tool_calls,
            images,
        } => {
            let current = store.providers().get(&name).await.map_err(store_error)?;
            let kept = current.as_ref().map(|p| p.config.flags).unwrap_or_default();
            let api_key_env = api_key_env
                .or_else(|| current.and_then(|p| p.config.api_key_env))
                .unwrap_or_else(|| ProviderConfig::default_api_key_env(&name));
            let config = ProviderConfig {
                name,
                base_url,
                model,
                api_key_env: Some(api_key_env),
                context_window,
                flags: FlagSettings {
                    stream_usage: stream_usage.or(kept.stream_usage),
                    replay_reasoning: replay_reasoning.or(kept.replay_reasoning),
                    text_tool_calls: text_tool_calls.or(kept.text_tool_calls),
                    images: images.or(kept.images),
                },
            };
            let provider = store.providers().set(&config).await.map_err(store_error)?;
            println!(
                "provider '{}': model {} at {}; key: OS keychain ({}), else ${}",
                provider.config.name,
                provider.config.model,
                provider.config.base_url,
                provider.key_entry,
                provider.config.api_key_env.as_deref().unwrap_or("-"),
            );
        }
        ProviderCommand::Key { name, delete } => {
            let provider = known_provider(&store, &name).await?;
            let secrets = Secrets::new();
            let fallback = |error: SecretError| {
                CliError::Failed(
                    error
                        .with_fallback(provider.config.api_key_env.as_deref())
                        .into(),
                )
            };
            if delete {
                let deleted = secrets.delete(&name).await.map_err(fallback)?;
                if deleted {
                    println!("deleted the API key of '{name}' from the OS keychain");
                } else {
                    println!("the OS keychain held no API key for '{name}'");
                }
                return Ok(ExitCode::SUCCESS);
            }
            let key = read_key(&name)?;
            secrets.set(&name, key).await.map_err(fallback)?;
            println!(
                "stored the API key of '{name}' in the OS keychain ({})",
                provider.key_entry
            );
        }
        ProviderCommand::Use { name } => {
            gantry_engine::find_provider(Some(&store), Some(&name))
                .await
                .map_err(|error| CliError::Usage(error.to_string()))?;
            store
                .settings()
                .set(ACTIVE_PROVIDER, &name)
                .await
                .map_err(store_error)?;
            println!("'{name}' is the provider `chat` and the app use by default");
        }
        ProviderCommand::List { json } => list(&store, json).await?,
        ProviderCommand::Remove { name } => {
            let provider = known_provider(&store, &name).await?;
            if let Err(error) = Secrets::new().delete(&name).await {
                eprintln!(
                    "gantry-cli: warning: the keychain entry ({}) could not be deleted; \
                     delete it with your keychain manager: {error}",
                    provider.key_entry
                );
            }
            store.providers().remove(&name).await.map_err(store_error)?;
            println!("removed provider '{name}'");
        }
    }
    Ok(ExitCode::SUCCESS)
}

async fn known_provider(store: &Store, name: &str) -> Result<Provider, CliError> {
    store
        .providers()
        .get(name)
        .await
        .map_err(store_error)?
        .ok_or_else(|| {
            CliError::Usage(format!(
                "unknown provider '{name}' (add it with: gantry-cli provider set {name} --base-url URL --model M)"
            ))
        })
}

/// Reads the key: a hidden prompt on a terminal, else one line of stdin.
fn read_key(name: &str) -> Result<Secret, CliError> {
    let mut line = if std::io::stdin().is_terminal() {
        rpassword::prompt_password(format!("API key for '{name}' (input hidden): "))
            .context("reading the key from the terminal")?
    } else {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .context("reading the key from stdin")?;
        line
    };
    // Trim in place, so no untrimmed copy is left behind unwiped.
    line.truncate(line.trim_end().len());
    let leading = line.len() - line.trim_start().len();
    line.drain(..leading);
    let key = Secret::new(line);
    if key.is_empty() {
        return Err(CliError::Usage("no API key given on stdin".into()));
    }
    Ok(key)
}

/// Where a provider's key would come from now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum KeyStatus {
    /// In the keychain.
    Keychain,
    /// Not in the keychain; the environment variable is set.
    Env,
    /// The keychain is unavailable; the environment variable is set.
    UnavailableEnv,
    /// The keychain is unavailable and the variable is not set.
    Unavailable,
    /// Nowhere.
    Missing,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Listed {
    #[serde(flatten)]
    provider: Provider,
    key: KeyStatus,
}

async fn list(store: &Store, json: bool) -> Result<(), CliError> {
    let providers = store.providers().list().await.map_err(store_error)?;
    let secrets = Secrets::new();
    let mut listed = Vec::with_capacity(providers.len());
    // One warning when the keychain is unavailable, naming a variable that would help.
    let mut warning: Option<(bool, SecretError)> = None;
    for provider in providers {
        let env_set = provider
            .config
            .api_key_env
            .as_deref()
            .is_some_and(|var| gantry_tools::key_from_env(var).is_some());
        let key = match secrets.get(&provider.config.name).await {
            Ok(Some(_)) => KeyStatus::Keychain,
            Ok(None) if env_set => KeyStatus::Env,
            Ok(None) => KeyStatus::Missing,
            Err(error @ SecretError::Unavailable { .. }) => {
                if warning
                    .as_ref()
                    .is_none_or(|(covered, _)| *covered && !env_set)
                {
                    let error = error.with_fallback(provider.config.api_key_env.as_deref());
                    warning = Some((env_set, error));
                }
                if env_set {
                    KeyStatus::UnavailableEnv
                } else {
                    KeyStatus::Unavailable
                }
            }
            Err(error) => return Err(CliError::Failed(error.into())),
        };
        listed.push(Listed { provider, key });
    }
    match warning {
        Some((false, error)) => eprintln!("gantry-cli: warning: {error}"),
        Some((true, SecretError::Unavailable { reason, .. })) => eprintln!(
            "gantry-cli: warning: the OS keychain (Secret Service) is not available ({reason}); \
             keys come from the environment"
        ),
        _ => {}
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&listed).context("serialising")?
        );
        return Ok(());
    }
    let rows: Vec<[String; 4]> = listed
        .iter()
        .map(|item| {
            let config = &item.provider.config;
            let var = config.api_key_env.as_deref().unwrap_or("-");
            let key = match item.key {
                KeyStatus::Keychain => "keychain".to_owned(),
                KeyStatus::Env => format!("${var}"),
                KeyStatus::UnavailableEnv => format!("${var} (keychain unavailable)"),
                KeyStatus::Unavailable => format!("none (keychain unavailable, ${var} unset)"),
                KeyStatus::Missing => "none".to_owned(),
            };
            [
                config.name.clone(),
                config.model.clone(),
                config.base_url.clone(),
                key,
            ]
        })
        .collect();
    table::print(["NAME", "MODEL", "BASE URL", "KEY"], &rows);
    Ok(())
}
