// The message used by the Chromium tests and the screenshots: math (inline and displayed), a price that is not
// math, a task list, a long code block and two attached images (one served over http, one data URL).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** A message as the harness page shows it (harness/entry.js). */
export interface HarnessMessage {
  role: "user" | "assistant";
  text: string;
  attachments?: unknown;
}

export const PHOTO_PATH = "photo.png";
export const photoBytes = () =>
  readFileSync(fileURLToPath(new URL("../../../app/public/icons/icon-192.png", import.meta.url)));

const LONG_LINE = `const table = [${Array.from({ length: 40 }, (_, i) => `"column_${i}"`).join(", ")}];`;

export function sampleMessages(baseUrl: string): HarnessMessage[] {
  return [
    {
      role: "user",
      text: "What is in these two pictures, and can you give me the formula?",
      attachments: [
        { type: "image_url", url: `${baseUrl}${PHOTO_PATH}` },
        { type: "image_data", data_url: `data:image/png;base64,${photoBytes().toString("base64")}` },
      ],
    },
    {
      role: "assistant",
      text: [
        "The area of a circle is $A = \\pi r^2$, and for $r = 2$ it is \\(4\\pi \\approx 12.57\\). Both prints cost $5 and $10.",
        "",
        "$$",
        "\\int_0^{\\infty} e^{-x^2}\\,dx = \\frac{\\sqrt{\\pi}}{2}",
        "$$",
        "",
        "Plan:",
        "- [x] measure the radius",
        "- [ ] compute the area",
        "- [ ] print both",
        "",
        "```ts",
        LONG_LINE,
        "console.log(table.length);",
        "```",
      ].join("\n"),
    },
  ];
}
