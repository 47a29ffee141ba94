import js from "@eslint/js";
import svelte from "eslint-plugin-svelte";
import globals from "globals";
import ts from "typescript-eslint";

import svelteConfig from "./svelte.config.js";

export default ts.config(
  // The bindings are generated from the Rust types (and checked for drift there).
  { ignores: ["dist/", "node_modules/", "src/bindings/"] },
  js.configs.recommended,
  ...ts.configs.strictTypeChecked,
  ...svelte.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.browser },
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
        extraFileExtensions: [".svelte"],
      },
    },
  },
  {
    files: ["**/*.svelte", "**/*.svelte.ts"],
    languageOptions: {
      parserOptions: {
        parser: ts.parser,
        svelteConfig,
      },
    },
  },
  {
    rules: {
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      // Model output reaches the DOM only through DOMPurify: `{@html}` is refused everywhere (model
      // Markdown is mounted block by block by src/lib/markdown-dom.ts, sanitised in markdown.ts).
      "svelte/no-at-html-tags": "error",
    },
  },
  {
    // The Markdown renderer (marked, DOMPurify) is a chunk the page loads the first time a message
    // needs it (src/lib/markdown-loader.ts): a static import of it from anywhere else would put it
    // back into the first script. Type-only imports are erased, so they stay allowed.
    files: ["src/**/*.ts", "src/**/*.svelte"],
    ignores: ["src/lib/markdown.ts", "src/lib/markdown-stream.ts", "src/lib/markdown-renderer.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(marked|dompurify|\\.\\.?/(lib/)?markdown(-stream|-renderer)?)$",
              allowTypeImports: true,
              message: "Load the Markdown renderer through markdown-loader.ts (it is a chunk of its own).",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["*.config.js", "*.config.ts"],
    extends: [ts.configs.disableTypeChecked],
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: false, project: false },
    },
  },
);
