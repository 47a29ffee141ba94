// The welcome screen's recent projects: the newest first as the backend sends them, a missing
// folder greyed and not clickable, a click opening the project. Backend mocked.

import { flushSync, mount, unmount } from "svelte";
import { afterEach, describe, expect, it, vi } from "vitest";

import Welcome from "../src/components/Welcome.svelte";
import { setLanguage } from "../src/lib/i18n.svelte";

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
  setLanguage("system");
});

describe("the welcome screen", () => {
  it("lists recent projects and opens the ones that still exist", async () => {
    const now = Date.now();
    const project = { id: 1, name: "app", path: "/home/me/app" };
    call.mockImplementation((command: string) =>
      Promise.resolve(
        command === "local_servers"
          ? { configured: true, servers: [] }
          : command === "recent_projects"
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

  it("reads in Chinese: the tagline, the button, the recent list and a folder that is gone", async () => {
    setLanguage("zh-CN");
    const now = Date.now();
    call.mockImplementation((command: string) =>
      Promise.resolve(
        command === "local_servers"
          ? { configured: true, servers: [] }
          : command === "recent_projects"
          ? [
              { name: "app", path: "/home/me/app", lastOpenedAt: now - 3 * 3_600_000, exists: true },
              { name: "gone", path: "/home/me/gone", lastOpenedAt: now - 86_400_000, exists: false },
            ]
          : null,
      ),
    );
    component = mount(Welcome, {
      target: document.body,
      props: { error: { path: "/srv/missing", message: "No such file or directory (os error 2)" }, onopen: vi.fn() },
    });
    await vi.waitFor(() => {
      expect(document.querySelectorAll("[data-testid=recent-project]")).toHaveLength(2);
    });
    flushSync();
    const screen = document.querySelector<HTMLElement>("[data-testid=welcome]");
    expect(screen?.querySelector(".tagline")?.textContent).toBe("一个编程智能体：只通过你掌控的工具操作你的项目。");
    expect(document.querySelector("[data-testid=open-folder]")?.textContent.trim()).toBe("打开项目文件夹…");
    expect([...(screen?.querySelectorAll("h2") ?? [])].map((heading) => heading.textContent)).toEqual([
      "无法打开 /srv/missing",
      "最近的项目",
    ]);
    // The engine's own words stay as they came.
    expect(document.querySelector("[data-testid=launch-error]")?.textContent).toContain("No such file or directory");
    const [app, gone] = [...document.querySelectorAll<HTMLButtonElement>("[data-testid=recent-project]")];
    expect(app?.querySelector(".when")?.textContent.trim()).toBe("3 小时前打开");
    expect(gone?.querySelector(".when")?.textContent.trim()).toBe("文件夹不存在");
    expect(gone?.title).toBe("/home/me/gone（文件夹不存在）");
  });

  it("says there is no recent project in Chinese, and follows a change of language at once", async () => {
    call.mockImplementation((command: string) =>
      Promise.resolve(command === "local_servers" ? { configured: true, servers: [] } : []),
    );
    component = mount(Welcome, { target: document.body, props: { error: null, onopen: vi.fn() } });
    await vi.waitFor(() => {
      expect(document.querySelector("[data-testid=no-recent]")).not.toBeNull();
    });
    expect(document.querySelector("[data-testid=no-recent]")?.textContent).toBe("No recent projects.");
    setLanguage("zh-CN");
    flushSync();
    expect(document.querySelector("[data-testid=no-recent]")?.textContent).toBe("没有最近的项目。");
    expect(document.querySelector("[data-testid=open-folder]")?.textContent.trim()).toBe("打开项目文件夹…");
  });
});
