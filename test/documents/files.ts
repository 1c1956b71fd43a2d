// Real documents made in the tests (docs/documents.md "Testing"): PDFs written by pdf-lib (a text layer per page, or
// none, or behind a password), a DOCX written as a real zip (the parts Word writes), HTML with a script.
import { createHash } from "node:crypto";
import { deflateRawSync } from "node:zlib";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { drawPage } from "../../server/documents/page-image.ts";

/** A page's width and height in points: A4 by default. */
export type PageSize = readonly [width: number, height: number];
const A4: PageSize = [595, 842];

/** A PDF whose page N (1-based) holds `pages[N-1]` as text, from the top left, on pages of `size`. */
export async function pdfWith(pages: readonly string[], size: PageSize = A4): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const text of pages) {
    const page = pdf.addPage([...size]);
    text.split("\n").forEach((line, i) => page.drawText(line, { x: 40, y: size[1] - 42 - i * 16, size: 11, font }));
  }
  return pdf.save();
}

/** A PDF of `count` pages with no text at all (a scan's pages hold only pictures). */
export async function pdfWithoutText(count: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  for (let i = 0; i < count; i++) pdf.addPage([595, 842]).drawRectangle({ x: 40, y: 40, width: 100, height: 100 });
  return pdf.save();
}

/**
 * A scan of `pages`: each page of pdfWith(pages, size) drawn to a PNG by the server's own renderer (page-image.ts),
 * then a new PDF of pages of the same size holding only those pictures, one a page: no text layer, words only as ink.
 * (tesseract's time grows with the page's pixels: a strip of a page holding its lines reads in a fraction of an A4's.)
 */
export async function scannedPdf(pages: readonly string[], size: PageSize = A4): Promise<Uint8Array> {
  const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");
  const data = await pdfWith(pages, size);
  const source = await pdfjs.getDocument({ data, isEvalSupported: false, verbosity: 0 }).promise;
  const scan = await PDFDocument.create();
  for (let number = 1; number <= source.numPages; number++) {
    const page = await source.getPage(number);
    const { png } = await drawPage(page, source.canvasFactory as Parameters<typeof drawPage>[1]);
    const picture = await scan.embedPng(png);
    scan.addPage([...size]).drawImage(picture, { x: 0, y: 0, width: size[0], height: size[1] });
  }
  await source.destroy();
  return scan.save();
}

interface ZipEntry {
  name: string;
  data: Buffer;
}

/** A zip archive (deflate), as Word writes one. */
/** The fields a local and a central header share, in this order from `at`: CRC-32, both sizes, the name's length. */
function writeSizes(
  header: Buffer,
  at: number,
  f: { crc: number; compressed: number; size: number; nameLength: number },
) {
  header.writeUInt32LE(f.crc, at);
  header.writeUInt32LE(f.compressed, at + 4);
  header.writeUInt32LE(f.size, at + 8);
  header.writeUInt16LE(f.nameLength, at + 12);
}

export function zip(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const compressed = deflateRawSync(entry.data);
    const crc = crc32(entry.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    const sizes = { crc, compressed: compressed.length, size: entry.data.length, nameLength: name.length };
    writeSizes(local, 14, sizes);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    writeSizes(central, 16, sizes);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

function crc32(data: Buffer): number {
  let crc = ~0;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

/** A DOCX whose paragraphs are `[style, text]`: style "Heading1" makes a top heading. */
export function docxWith(paragraphs: ReadonlyArray<readonly [string | undefined, string]>): Buffer {
  const body = paragraphs
    .map(
      ([style, text]) =>
        `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ""}<w:r><w:t>${text}</w:t></w:r></w:p>`,
    )
    .join("");
  return zip([
    {
      name: "[Content_Types].xml",
      data: Buffer.from(
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
      ),
    },
    {
      name: "_rels/.rels",
      data: Buffer.from(
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
      ),
    },
    {
      name: "word/document.xml",
      data: Buffer.from(`<?xml version="1.0"?><w:document ${W}><w:body>${body}</w:body></w:document>`),
    },
  ]);
}

/** A DOCX whose document.xml inflates to `megabytes` of zeros: a zip bomb. */
export function docxBomb(megabytes: number): Buffer {
  const filler = Buffer.alloc(megabytes * 1024 * 1024, 0x20);
  return zip([
    { name: "[Content_Types].xml", data: Buffer.from("<Types/>") },
    {
      name: "word/document.xml",
      data: Buffer.concat([Buffer.from(`<w:document ${W}><w:body><w:p><w:r><w:t>`), filler]),
    },
  ]);
}

/** The padding of PDF's standard security handler (ISO 32000-1, 7.6.3.3): a password is filled up to 32 bytes with it. */
const PASSWORD_PAD = Buffer.from("28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a", "hex");

function rc4(key: Buffer, data: Buffer): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 255;
    j = (j + s[i]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 255]!;
  }
  return out;
}

const padded = (password: string) => Buffer.concat([Buffer.from(password, "latin1"), PASSWORD_PAD]).subarray(0, 32);
const md5 = (...parts: Buffer[]) => createHash("md5").update(Buffer.concat(parts)).digest();

/**
 * A one-page PDF protected by `password` (the standard security handler, revision 2, RC4 of 40 bits: its O and U
 * computed as ISO 32000-1 algorithms 3 and 4 say), which a reader opens only with the password. Its page has no
 * content, so nothing else needs encrypting.
 */
export function pdfWithPassword(password: string): Uint8Array {
  const id = Buffer.from("0123456789abcdef0123456789abcdef", "hex");
  const permissions = -4;
  const owner = rc4(md5(padded(`${password}-owner`)).subarray(0, 5), padded(password));
  const p = Buffer.alloc(4);
  p.writeInt32LE(permissions);
  const user = rc4(md5(padded(password), owner, p, id).subarray(0, 5), PASSWORD_PAD);
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
    `<< /Filter /Standard /V 1 /R 2 /O <${owner.toString("hex")}> /U <${user.toString("hex")}> /P ${permissions} >>`,
  ];
  let body = "%PDF-1.4\n";
  const offsets = objects.map((object, i) => {
    const at = body.length;
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
    return at;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((at) => `${String(at).padStart(10, "0")} 00000 n \n`).join("");
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 4 0 R /ID [<${id.toString("hex")}> <${id.toString("hex")}>] >>\n`;
  body += `startxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(body);
}
