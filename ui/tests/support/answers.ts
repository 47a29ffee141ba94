// Real-looking model answers for the streaming renderer's tests and bench: the Markdown a coding
// assistant writes (headings, nested lists, tables, fences, quotes, links), plus the awkward
// parts (HTML-looking text, a fence inside a fence, setext headings, reference definitions,
// multi-byte text, CRLF), and a seeded generator of line soup that strings tricky lines together.

/** A small, fast, seeded PRNG (mulberry32): the same seed gives the same cases. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A whole number in [0, max). */
export function below(random: () => number, max: number): number {
  return Math.floor(random() * max);
}

export const ANSWERS: Readonly<Record<string, string>> = {
  overview: `# Reading the project

I looked at \`src/main.rs\` and the **engine** crate. Here is what happens on start:

1. The CLI parses its flags with *clap*.
2. It opens the project:
   - reads \`.gantry/config.toml\`
   - starts the watcher
     - which skips \`target/\`
3. Then the loop runs.

## The loop

\`\`\`rust
fn main() -> Result<(), Error> {
    let project = Project::open(".")?;
    for event in project.events() {
        println!("{event:?}");
    }
    Ok(())
}
\`\`\`

See [the docs](https://docs.rs/tokio) and <https://example.com/path?q=1>, or mail <dev@example.com>.
Bare links like https://github.com/rust-lang/rust are linked too.

---

That's all.
`,
  table: `Here is the comparison you asked for:

| Crate | Version | Notes |
|:------|:-------:|------:|
| tokio | 1.40 | async runtime |
| serde | 1.0 | \`derive\` feature |
| 日本語 | 2 | multi-byte 🚀 |
More text right after the table is a row in GFM.

| a | b |
|---|---|
| 1 | 2 |

Next paragraph after a blank line.
Line two of it.
`,
  fences: `To nest a fence, use tildes:

~~~markdown
Here is code:

\`\`\`js
console.log("<script>alert(1)</script>");
\`\`\`
~~~

And an indented block:

    $ cargo build
    $ cargo test

Done, with \`inline <b>code</b>\` too.
`,
  openFence: `Start:

\`\`\`python
print("never closed")
`,
  html: `Use a <div> element here, not <span>.

<div class="toast" id="x" style="position:fixed">
A toast that must not look like one.
</div>

<script>alert("xss")</script>

<img src=x onerror="alert(1)"> and <a href="javascript:alert(1)">a link</a>.

<a href="https://example.com">an open anchor, then https://example.org stays text

<details><summary>More</summary>

Hidden **text**.

</details>

Text with <kbd>Ctrl</kbd>+<kbd>C</kbd> and a <br> break.

<!-- a comment
over lines -->
After the comment.
`,
  quotes: `> **Note**
> This is a quote
with a lazy line.

> - a list in a quote
> - second
>
> > nested quote

Setext heading
==============

Another one
---

A paragraph
that continues
- and a list interrupts it
- two

1. one
2. two

   continued inside item two

3. three
`,
  references: `Read [the guide][guide] and [Tokio] first, then ![logo][img].

- See [the API][api].

[guide]: https://example.com/guide "The guide"
[tokio]: https://tokio.rs
[api]: https://docs.rs/api
'with a title on the next line'
[img]: data:image/png;base64,iVBORw0KGgo=

Last line [guide].
`,
  multibyte: `## 中文回答

这是一个段落，包含 **粗体** 和 \`代码\`。

- 项目一 🚀
- 项目二 👩‍👩‍👧‍👦 family
- Ünïcödé ñ ç é — “quotes” … 🇫🇷

| 名称 | 值 |
|---|---|
| 温度 | 25°C |

> 引用：𝒳 math 𝔸 and combining é (e + ◌́)
`,
  tasks: `### Plan

- [x] read the code
- [ ] write the test
  - [ ] nested task
* another list marker

3. starts at three
4. four

+ plus list

***
___

Final paragraph with trailing spaces  
and a hard break, and a \\
backslash break.
`,
  crlf: "# Windows\r\n\r\nLine one\r\nLine two\r\n\r\n- item\r\n- item two\r\n\r\n```\r\ncode\r\n```\r\n",
};

/** Lines that end, continue or reshape the block before them. */
const SOUP_LINES = [
  "",
  "",
  "",
  "plain text with *em* and `code`",
  "another line",
  "# heading",
  "## heading two ##",
  "===",
  "---",
  "***",
  "- item",
  "- [ ] task",
  "  - nested item",
  "    indented four",
  "1. first",
  "2. second",
  "1) paren",
  "> quote",
  ">",
  "| a | b |",
  "|---|---|",
  "| 1 | 2 |",
  "```",
  "```js",
  "~~~",
  "<div>",
  "</div>",
  "<div class=\"modal-backdrop\">x</div>",
  "<script>alert(1)</script>",
  "<!--",
  "-->",
  "<pre>",
  "</pre>",
  "[ref]: https://example.com",
  "[ref]: https://example.com \"title\"",
  "\"a title line\"",
  "see [ref] and [other][ref]",
  "<a href=\"https://x.example\">open anchor",
  "https://bare.example/link",
  "中文 text 🚀 emoji",
  "trailing spaces  ",
  "\\",
  "   three spaces in",
  "\t- tab item",
  "+ plus item",
  "10. ten",
  "- > quote in a list",
  "> > nested quote",
  "> - list in a quote",
  "Title line",
  "| single |",
  "a | b",
  "--- | ---",
  "|:--|--:|",
  "````",
  "~~~~",
  "```rust title=x",
  "<table>",
  "</table>",
  "<details>",
  "<?php echo 1; ?>",
  "<!DOCTYPE html>",
  "<![CDATA[ x ]]>",
  "<span>inline</span> html",
  "<img src=x onerror=alert(1)>",
  "*emphasis that",
  "ends here*",
  "`code that",
  "spans lines`",
  "[link text](https://example.com/a_(b))",
  "![image](data:image/png;base64,iVBORw0KGgo=)",
  "<https://auto.example>",
  "[REF]: <https://other.example> 'single title'",
  "(paren title)",
  "    ",
];

/** A random document of `lines` tricky lines. */
export function soup(random: () => number, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i += 1) out.push(SOUP_LINES[below(random, SOUP_LINES.length)] ?? "");
  return out.join(random() < 0.2 ? "\r\n" : "\n") + (random() < 0.5 ? "\n" : "");
}

/** `text` cut at `cuts` random places (anywhere, inside a surrogate pair included). */
export function randomChunks(random: () => number, text: string, cuts: number): string[] {
  const points = new Set<number>();
  for (let i = 0; i < cuts; i += 1) points.add(1 + below(random, Math.max(1, text.length - 1)));
  const sorted = [...points].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const point of sorted) {
    chunks.push(text.slice(from, point));
    from = point;
  }
  chunks.push(text.slice(from));
  return chunks.filter((chunk) => chunk !== "");
}

/** A long answer of about `length` characters, made of the answers above in turn but those
 *  named in `leaveOut` (and the open fence, which would make the rest of it one code block). */
export function longAnswer(length: number, leaveOut: readonly string[] = []): string {
  const parts = Object.entries(ANSWERS)
    .filter(([name]) => name !== "openFence" && !leaveOut.includes(name))
    .map(([, answer]) => answer.replace(/\r\n/g, "\n"));
  let text = "";
  for (let i = 0; text.length < length; i += 1) text += `${parts[i % parts.length] ?? ""}\n`;
  return text.slice(0, length);
}
