// Which session the window shows: set by the project view, read by the dialog host (a dialog
// belongs to its session and shows only while that session is shown).

/** The shown session's id; `null` for a fresh chat or the welcome screen. */
export const shownSession = $state<{ id: string | null }>({ id: null });
