// The welcome screen's recent projects: the newest first as the backend sends them, a missing
// folder greyed and not clickable, a click opening the project. Backend mocked.

import { flushSync, mount, unmount } from "svelte";
import { afterEach, describe, expect, it, vi } from "vitest";

import Welcome from "../src/components/Welcome.svelte";

const { call } = vi.hoisted(() => ({ call: vi.fn() }));

vi.mock("../src/lib/ipc", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../src/lib/ipc")>();
  return { ...actual, call };
});

let component: ReturnType<typeof mount> | null = null;

afterEach(() => {
  if (component) void unmount(component);
  component = null;
  document.body.innerHTML = "";
  call.mockReset();
});

describe("the welcome screen", () => {
  it("lists recent projects and opens the ones that still exist", async () => {
    const now = Date.now();
    const project = { id: 1, name: "app", path: "/home/me/app" };
    call.mockImplementation((command: string) =>
      Promise.resolve(
        command === "recent_projects"
          ? [
              { name: "app", path: "/home/me/app", lastOpenedAt: now - 3 * 3_600_000, exists: true },
              { name: "gone", path: "/home/me/gone", lastOpenedAt: now - 86_400_000, exists: false },
            ]
          : project,
      ),
    );
    const onopen = vi.fn();
    component = mount(Welcome, { target: document.body, props: { error: null, onopen } });
    await vi.waitFor(() => {
      expect(document.querySelectorAll("[data-testid=recent-project]")).toHaveLength(2);
    });
    flushSync();
    const [app, gone] = [...document.querySelectorAll<HTMLButtonElement>("[data-testid=recent-project]")];
    expect(app?.dataset.path).toBe("/home/me/app");
    expect(app?.textContent).toContain("opened 3 h ago");
    expect(gone?.disabled).toBe(true);
    expect(gone?.textContent).toContain("folder not found");
    app?.click();
    expect(call).toHaveBeenCalledWith("open_project", { path: "/home/me/app" });
    await vi.waitFor(() => {
      expect(onopen).toHaveBeenCalledWith(project);
    });
  });
});
