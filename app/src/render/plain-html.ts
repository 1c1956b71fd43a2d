// Which of markdown-it's outputs the sanitizer would keep as they are: HTML whose every tag is a plain one (a
// paragraph, a line break, emphasis, a list, a heading, a table's cells...) written without attributes. markdown-it
// escapes every `<` of the message's text (raw HTML is off), so such HTML holds no attribute, no link and no other
// element; DOMPurify would return it unchanged but for how it spells entities. Most messages are such paragraphs, and
// sanitizing one costs a DOM parse: most of its rendering (docs/app.md "Rendering").

/** A `<` that does not open or close one of the plain tags, written bare (`<p>`, `</li>`, `<br>`). */
const NOT_PLAIN = /<(?!\/?(?:p|br|em|strong|s|code|pre|blockquote|ul|ol|li|h[1-6]|hr|table|thead|tbody|tr|th|td)>)/;

/** True when `html` has no tag but plain ones without attributes: nothing the sanitizer would remove or change. */
export function isPlainHtml(html: string): boolean {
  return !NOT_PLAIN.test(html);
}
