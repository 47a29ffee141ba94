// Typed access to the backend: every command name, argument, result and event payload comes from
// the generated bindings, so a call that does not match the Rust side does not compile.

import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";

import type { CommandError } from "../bindings/CommandError";
import type { ErrorReason } from "../bindings/ErrorReason";
import type { Commands, Events } from "../bindings/ipc";
import { joinList, t } from "./i18n.svelte";

type RequestArgs<K extends keyof Commands> = Commands[K]["request"] extends null
  ? []
  : [request: Commands[K]["request"]];

/** Calls backend command `command`; rejects with a {@link CommandError}. */
export function call<K extends keyof Commands>(
  command: K,
  ...args: RequestArgs<K>
): Promise<Commands[K]["response"]> {
  const [request] = args;
  return invoke<Commands[K]["response"]>(command, request === undefined ? {} : { request });
}

/** Listens to backend event `event` until the returned function is called. */
export function on<K extends keyof Events>(
  event: K,
  handler: (payload: Events[K]) => void,
): Promise<UnlistenFn> {
  return listen<Events[K]>(event, (message) => {
    handler(message.payload);
  });
}

/** True for the object a failed command rejects with. */
export function isCommandError(error: unknown): error is CommandError {
  return (
    typeof error === "object" &&
    error !== null &&
    typeof (error as { kind?: unknown }).kind === "string" &&
    typeof (error as { message?: unknown }).message === "string"
  );
}

/** The sentence for an everyday refusal, in the UI's language. */
export function reasonText(reason: ErrorReason): string {
  switch (reason.code) {
    case "mcp_starting":
      return t("error.mcpStarting");
    case "mcp_names_taken":
      return t("error.mcpNamesTaken", { names: joinList(reason.names), file: reason.file, count: reason.names.length });
    case "mcp_edited_elsewhere":
      return t("error.mcpEditedElsewhere", { name: reason.name, file: reason.file });
    case "mcp_file_changed":
      return t("error.mcpFileChanged", { file: reason.file });
    case "mcp_nothing_chosen":
      return t("error.mcpNothingChosen");
  }
}

/** A sentence for the user, whatever was thrown: a refusal the UI knows in its language, the
 *  backend's message otherwise. */
export function describeError(error: unknown): string {
  if (isCommandError(error)) return error.reason === undefined ? error.message : reasonText(error.reason);
  if (error instanceof Error) return error.message;
  return String(error);
}
