// GitHub-style task lists: a list item whose text starts with "[ ] " or "[x] " gets a disabled checkbox (the
// reply is a document, not a form), wrapped with the item's text in a <label> so the checkbox has a name.
import type MarkdownIt from "markdown-it";
import type StateCore from "markdown-it/lib/rules_core/state_core.mjs";

const MARKER = /^\[([ xX])\][ \t]/;

function taskLists(state: StateCore): void {
  const tokens = state.tokens;
  for (let index = 2; index < tokens.length; index++) {
    const inline = tokens[index]!;
    if (inline.type !== "inline" || tokens[index - 1]!.type !== "paragraph_open") continue;
    if (tokens[index - 2]!.type !== "list_item_open") continue;
    const marker = MARKER.exec(inline.content);
    const firstText = inline.children?.[0];
    if (!marker || !firstText || firstText.type !== "text" || !MARKER.test(firstText.content)) continue;
    firstText.content = firstText.content.slice(marker[0].length);
    const checked = marker[1] !== " ";
    const open = new state.Token("html_inline", "", 0);
    open.content = `<label class="task-label"><input type="checkbox" class="task-checkbox" disabled${checked ? " checked" : ""}> `;
    const close = new state.Token("html_inline", "", 0);
    close.content = "</label>";
    inline.children!.unshift(open);
    inline.children!.push(close);
    tokens[index - 2]!.attrJoin("class", "task-list-item");
  }
}

export function taskListSyntax(markdown: MarkdownIt): void {
  markdown.core.ruler.after("inline", "task_lists", taskLists);
}
