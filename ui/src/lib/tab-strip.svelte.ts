// The tab strip's state for one project's window: the open tabs (session-tabs.ts decides their
// order), kept in step with the session the chat shows, remembered through the backend once
// read from it.

import { call } from "./ipc";
import type { ProjectChat } from "./project-chat.svelte";
import { rememberedTabs, restoredTabs, type TabId, withoutTab, withShown } from "./session-tabs";

export class TabStrip {
  /** The open tabs, left to right (empty until the remembered ones are read). */
  tabs = $state.raw<readonly TabId[]>([]);

  readonly #chat: ProjectChat;
  /** The tabs remembered by the backend, once read (`null` before). */
  #remembered: readonly string[] | null = null;
  /** Whether the chat's shown session has been followed once (the tabs are set up). */
  #following = false;
  /** The tab shown last. */
  #previous: TabId = null;
  /** The tab being closed while the chat switches away from it (not given a tab again). */
  #leaving: TabId | undefined;
  /** What was saved last, to save only changes. */
  #saved = "";

  constructor(chat: ProjectChat) {
    this.#chat = chat;
  }

  /** Reads the remembered tabs (the strip follows the chat from then on). */
  async load(): Promise<void> {
    try {
      this.#remembered = (await call("session_tabs")).open;
    } catch {
      // The strip starts with the shown session's tab alone.
      this.#remembered = [];
    }
    this.#saved = JSON.stringify(this.#remembered);
    if (this.#chat.loaded) this.follow(this.#chat.state.sessionId);
  }

  /** Gives the chat's shown session its tab (call whenever it changes). */
  follow(shown: TabId): void {
    if (this.#remembered === null || shown === this.#leaving) return;
    const tabs = this.#following ? withShown(this.tabs, shown, this.#previous) : restoredTabs(this.#remembered, shown);
    this.#following = true;
    this.#previous = shown;
    this.#set(tabs);
  }

  /** Shows tab `tab`. */
  async show(tab: TabId): Promise<void> {
    await (tab === null ? this.#chat.newSession() : this.#chat.openSession(tab));
  }

  /** Closes tab `tab`; the chat shows another tab when it was the shown one. A turn running
   *  in its session goes on (the session list marks it). */
  async close(tab: TabId): Promise<void> {
    const { tabs, show } = withoutTab(this.tabs, tab, this.#chat.state.sessionId);
    this.#set(tabs);
    if (show === undefined) return;
    this.#leaving = tab;
    try {
      await this.show(show);
    } finally {
      this.#leaving = undefined;
      // Should the switch have failed, the shown session keeps (or gets back) its tab.
      this.follow(this.#chat.state.sessionId);
    }
  }

  /** Forgets session `id`'s tab (it was deleted). */
  forget(id: string): void {
    if (this.tabs.includes(id)) this.#set(this.tabs.filter((tab) => tab !== id));
  }

  #set(tabs: readonly TabId[]): void {
    this.tabs = tabs;
    const open = rememberedTabs(tabs);
    const text = JSON.stringify(open);
    if (text === this.#saved) return;
    this.#saved = text;
    call("save_session_tabs", { open }).catch(() => {
      // Not remembered this time; the next change saves them all again.
      this.#saved = "";
    });
  }
}
