//! The `#[tool]` attribute: an async function plus its argument struct become a Gantry tool.
//!
//! ```ignore
//! /// Read a text file, returning a window of numbered lines.
//! #[tool]
//! async fn read_file(ctx: &ToolContext, args: ReadFileArgs) -> ToolResult { ... }
//!
//! /// Write a file.
//! #[tool(level = sensitive, preview = write_preview)]
//! async fn write_file(ctx: &ToolContext, args: WriteFileArgs) -> ToolResult { ... }
//! ```
//!
//! The function stays as written; next to it the attribute declares a unit struct named after it
//! in UpperCamelCase (`ReadFile`) that implements `gantry_tools::ToolFn`, so registering the tool
//! is one line: `manager.register(ReadFile)?`. The name defaults to the function's name, the
//! description to the first paragraph of its doc comment, the level to SAFE; `name = "..."`,
//! `description = "..."`, `level = safe|sensitive|dangerous`, `scope = path` (a
//! `fn(&ToolContext, &Args) -> ApprovalScope`) and `preview = path` (an
//! `async fn(&ToolContext, &Args) -> Option<Preview>`) override or add to them; the flag
//! `interactive` marks a tool that talks to the user (it never runs beside other calls), the
//! flag `sandboxed` a tool that runs commands in the OS sandbox (on a system without one, each
//! call asks and can only be allowed once), and the flag `records_changes` marks a tool that reports every file it replaces to the call's change
//! record itself (`gantry_tools::CallChanges`), so the manager need not snapshot the project
//! around it.

use heck::ToUpperCamelCase;
use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote};
use syn::{
    Expr, ExprLit, FnArg, Ident, ItemFn, Lit, LitStr, Meta, Pat, Path, Type, parse_macro_input,
};

/// Turns an async function `fn(&ToolContext, Args) -> ToolResult` (or `fn(Args)`) into a tool.
/// See the crate documentation for the options.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let function = parse_macro_input!(item as ItemFn);
    let mut options = ToolOptions::default();
    let parser = syn::meta::parser(|meta| options.parse(meta));
    parse_macro_input!(attr with parser);
    match expand(&options, &function) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

#[derive(Default)]
struct ToolOptions {
    name: Option<LitStr>,
    description: Option<LitStr>,
    level: Option<Ident>,
    scope: Option<Path>,
    preview: Option<Path>,
    interactive: bool,
    sandboxed: bool,
    records_changes: bool,
}

impl ToolOptions {
    fn parse(&mut self, meta: syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
        if meta.path.is_ident("name") {
            self.name = Some(meta.value()?.parse()?);
        } else if meta.path.is_ident("description") {
            self.description = Some(meta.value()?.parse()?);
        } else if meta.path.is_ident("level") {
            let value = meta.value()?;
            let level: Ident = if value.peek(LitStr) {
                let text: LitStr = value.parse()?;
                Ident::new(&text.value(), text.span())
            } else {
                value.parse()?
            };
            self.level = Some(level);
        } else if meta.path.is_ident("scope") {
            self.scope = Some(meta.value()?.parse()?);
        } else if meta.path.is_ident("preview") {
            self.preview = Some(meta.value()?.parse()?);
        } else if meta.path.is_ident("interactive") {
            self.interactive = true;
        } else if meta.path.is_ident("sandboxed") {
            self.sandboxed = true;
        } else if meta.path.is_ident("records_changes") {
            self.records_changes = true;
        } else {
            return Err(meta.error(
                "unknown #[tool] option; expected name, description, level, scope, preview, interactive, sandboxed or records_changes",
            ));
        }
        Ok(())
    }
}

fn expand(options: &ToolOptions, function: &ItemFn) -> syn::Result<TokenStream2> {
    let signature = &function.sig;
    if signature.asyncness.is_none() {
        return Err(syn::Error::new_spanned(
            signature.fn_token,
            "#[tool] functions must be async",
        ));
    }
    let inputs: Vec<&FnArg> = signature.inputs.iter().collect();
    let (takes_context, args_type) = match inputs.as_slice() {
        [args] => (false, argument_type(args)?),
        [_context, args] => (true, argument_type(args)?),
        _ => {
            return Err(syn::Error::new_spanned(
                &signature.inputs,
                "#[tool] functions take `(ctx: &ToolContext, args: Args)` or `(args: Args)`",
            ));
        }
    };

    let function_name = &signature.ident;
    let visibility = &function.vis;
    let struct_name = format_ident!("{}", function_name.to_string().to_upper_camel_case());
    let tool_name = options
        .name
        .as_ref()
        .map_or_else(|| function_name.to_string(), LitStr::value);
    let doc = doc_comment(function);
    let description = match &options.description {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    };
    let level = match &options.level {
        None => quote!(::gantry_tools::PermissionLevel::Safe),
        Some(ident) => {
            let variant = match ident.to_string().to_ascii_lowercase().as_str() {
                "safe" => "Safe",
                "sensitive" => "Sensitive",
                "dangerous" => "Dangerous",
                _ => {
                    return Err(syn::Error::new(
                        ident.span(),
                        "level must be safe, sensitive or dangerous",
                    ));
                }
            };
            let variant = Ident::new(variant, ident.span());
            quote!(::gantry_tools::PermissionLevel::#variant)
        }
    };
    let call = if takes_context {
        quote!(#function_name(ctx, args))
    } else {
        quote!({
            let _ = ctx;
            #function_name(args)
        })
    };
    let scope = options.scope.as_ref().map(|path| {
        quote! {
            fn scope(
                &self,
                ctx: &::gantry_tools::ToolContext,
                args: &#args_type,
            ) -> ::gantry_tools::ApprovalScope {
                #path(ctx, args)
            }
        }
    });
    let preview = options.preview.as_ref().map(|path| {
        quote! {
            fn preview<'a>(
                &'a self,
                ctx: &'a ::gantry_tools::ToolContext,
                args: &'a #args_type,
            ) -> impl ::core::future::Future<Output = ::core::option::Option<::gantry_tools::Preview>> + ::core::marker::Send + 'a {
                #path(ctx, args)
            }
        }
    });
    let interactive = options.interactive;
    let sandboxed = options.sandboxed;
    let records_changes = options.records_changes;
    let struct_doc = LitStr::new(
        &format!("The `{tool_name}` tool, generated by `#[tool]` from `{function_name}`."),
        Span::call_site(),
    );

    Ok(quote! {
        #function

        #[doc = #struct_doc]
        #[derive(Debug, Clone, Copy, Default)]
        #visibility struct #struct_name;

        impl ::gantry_tools::ToolFn for #struct_name {
            type Args = #args_type;
            const NAME: &'static str = #tool_name;
            const DOC: &'static str = #doc;
            const DESCRIPTION: ::core::option::Option<&'static str> = #description;
            const LEVEL: ::gantry_tools::PermissionLevel = #level;
            const INTERACTIVE: bool = #interactive;
            const SANDBOXED: bool = #sandboxed;
            const RECORDS_CHANGES: bool = #records_changes;

            fn call<'a>(
                &'a self,
                ctx: &'a ::gantry_tools::ToolContext,
                args: #args_type,
            ) -> impl ::core::future::Future<Output = ::gantry_tools::ToolResult> + ::core::marker::Send + 'a {
                #call
            }

            #scope
            #preview
        }
    })
}

/// The type of a `name: Type` parameter.
fn argument_type(input: &FnArg) -> syn::Result<&Type> {
    match input {
        FnArg::Typed(typed) if matches!(*typed.pat, Pat::Ident(_) | Pat::Wild(_)) => Ok(&typed.ty),
        _ => Err(syn::Error::new_spanned(
            input,
            "expected a `name: Type` parameter",
        )),
    }
}

/// The function's doc comment, its lines joined with newlines.
fn doc_comment(function: &ItemFn) -> String {
    function
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(pair) => match &pair.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(text),
                    ..
                }) => Some(text.value()),
                _ => None,
            },
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
