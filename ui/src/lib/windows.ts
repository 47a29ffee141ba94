// Windows: each shows one project. "Open project in new window" (Ctrl+Shift+O, or the project
// menu) asks the backend for the folder picker and a new window; a folder another window shows
// brings that window to the front instead.

import { call } from "./ipc";

/** Whether `event` asks for a project in a new window: Ctrl+Shift+O (Cmd+Shift+O on a Mac). */
export function isNewWindowKey(event: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "shiftKey" | "altKey">): boolean {
  return (event.ctrlKey || event.metaKey) && event.shiftKey && !event.altKey && event.key.toLowerCase() === "o";
}

/** Picks a folder and opens it in a new window (or focuses the window that shows it). */
export function openProjectWindow(): Promise<void> {
  return call("open_project_window", {}).then(() => undefined);
}
