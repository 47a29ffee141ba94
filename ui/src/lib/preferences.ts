// The UI's preferences kept with the app's settings (the language chosen, the file tree's place
// in the sidebar): read once per window, saved when changed. The webview's own storage keeps a
// copy only so the first frame is right; what the app stored wins once it is read.

import type { LanguageChoice } from "../bindings/LanguageChoice";
import type { TreeLayout } from "../bindings/TreeLayout";
import type { UiPreferences } from "../bindings/UiPreferences";
import { call } from "./ipc";

let loaded: Promise<UiPreferences> | null = null;

/** The stored preferences, asked for once per window (a failed read is asked again next time). */
export function uiPreferences(): Promise<UiPreferences> {
  loaded ??= call("ui_preferences").catch((error: unknown) => {
    loaded = null;
    throw error;
  });
  return loaded;
}

/** Remembers the language chosen (a failure is logged: the choice still applies for this run). */
export function saveLanguage(language: LanguageChoice): void {
  call("save_language", { language }).catch((error: unknown) => {
    console.warn("the language choice was not saved", error);
  });
}

/** Remembers the file tree's place (a failure is logged: the layout still applies for this run). */
export function saveTreeLayout(layout: TreeLayout): void {
  call("save_tree_layout", { open: layout.open, height: Math.round(layout.height) }).catch(
    (error: unknown) => {
      console.warn("the tree layout was not saved", error);
    },
  );
}
