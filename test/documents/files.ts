// Real documents made in the tests (docs/documents.md "Testing"): PDFs written by pdf-lib (a text layer per page, or
// none, or a password), a DOCX written as a real zip (the parts Word writes), HTML with a script.
import { deflateRawSync } from "node:zlib";
import { PDFDocument, StandardFonts } from "pdf-lib";

/** A PDF whose page N (1-based) holds `pages[N-1]` as text. */
export async function pdfWith(pages: readonly string[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const text of pages) {
    const page = pdf.addPage([595, 842]);
    text.split("\n").forEach((line, i) => page.drawText(line, { x: 40, y: 800 - i * 16, size: 11, font }));
  }
  return pdf.save();
}

/** A PDF of `count` pages with no text at all (a scan's pages hold only pictures). */
export async function pdfWithoutText(count: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  for (let i = 0; i < count; i++) pdf.addPage([595, 842]).drawRectangle({ x: 40, y: 40, width: 100, height: 100 });
  return pdf.save();
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
