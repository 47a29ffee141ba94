// Set up for every test file: a part of the page a test started loading (the Markdown renderer,
// the highlighter) is given time to load before the file's environment is torn down; a load
// still under way then fails the run with an error that names no test.

import { afterAll } from "vitest";

import { settleLoads } from "../../src/lib/lazy-module";

afterAll(() => settleLoads());
