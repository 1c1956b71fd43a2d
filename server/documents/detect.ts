// What a file is (docs/documents.md "Types"): PDF and DOCX by their bytes, text types by the name's extension once the
// bytes are UTF-8. A declared type (the upload's Content-Type) that the bytes contradict is refused naming both, so a
// renamed or mislabeled file is caught before it is read.
import { invalid, unsupportedMedia } from "../errors.ts";

export const PDF = "application/pdf";
export const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/** Text types by extension; source files are plain text. */
const TEXT_TYPES: Record<string, string> = {
  txt: "text/plain",
  text: "text/plain",
  log: "text/plain",
  md: "text/markdown",
  markdown: "text/markdown",
  csv: "text/csv",
  json: "application/json",
  html: "text/html",
  htm: "text/html",
};
const SOURCE = new Set(
  "ts tsx js jsx mjs cjs py rb go rs java kt c h cc cpp hpp cs php sh bash zsh sql css scss yaml yml toml ini xml swift lua r".split(
    " ",
  ),
);

/** Declared types that say nothing about the bytes. */
const GENERIC = new Set(["", "application/octet-stream", "binary/octet-stream", "application/x-www-form-urlencoded"]);

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot < 0 ? "" : name.slice(dot + 1).toLowerCase();
}

function sniff(bytes: Uint8Array, name: string): string | undefined {
  const head = Buffer.from(bytes.subarray(0, 8)).toString("latin1");
  if (head.startsWith("%PDF-")) return PDF;
  if (head.startsWith("PK\x03\x04")) return Buffer.from(bytes).includes("word/document.xml") ? DOCX : "application/zip";
  const extension = extensionOf(name);
  const textType = TEXT_TYPES[extension] ?? (SOURCE.has(extension) ? "text/plain" : undefined);
  if (textType === undefined) return undefined;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return textType;
  } catch {
    return "application/octet-stream";
  }
}

/** The document's media type; refuses a type it does not read (415) and a declared type its bytes contradict (400). */
export function detectMediaType(bytes: Uint8Array, name: string, declared: string | undefined): string {
  const detected = sniff(bytes, name);
  const said = (declared ?? "").split(";")[0]!.trim().toLowerCase();
  if (
    detected !== undefined &&
    !GENERIC.has(said) &&
    said !== detected &&
    !(said === "text/plain" && detected.startsWith("text/"))
  )
    throw invalid("media_type_mismatch", `the file is declared ${said} but its bytes are ${detected}`, {
      declared: said,
      detected,
    });
  if (detected === undefined || detected === "application/zip" || detected === "application/octet-stream")
    throw unsupportedMedia(
      "unsupported_media_type",
      `${name} is not a document this server reads: PDF, DOCX, or UTF-8 text (.txt, .md, .csv, .json, .html, source files)`,
    );
  return detected;
}
