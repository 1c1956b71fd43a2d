// Config `documents` (docs/documents.md "Limits"): how large a file may be, how many pages, and how much of a document
// goes to the model whole rather than by retrieval.
import { z } from "zod";

/**
 * Config `documents.ocr` (docs/documents.md "OCR"). Absent, OCR runs with these defaults whenever tesseract is found;
 * `enabled: false` turns it off.
 */
export const ocrConfigSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** Pages of one document read by OCR at most; later pages without text stay empty. */
    max_pages: z.number().int().positive().max(2000).default(50),
    /** One page's OCR is stopped (its tesseract killed) after this long; the page stays empty. */
    page_timeout_ms: z.number().int().positive().max(600_000).default(60_000),
    /** tesseract's `-l`: installed language packs joined by "+" (tesseract-ocr-eng gives "eng"). */
    languages: z
      .string()
      .regex(/^[a-z_]{3,20}(\+[a-z_]{3,20}){0,4}$/i, 'language codes joined by "+", such as "eng" or "eng+deu"')
      .default("eng"),
  })
  .strict();

export type OcrConfig = z.output<typeof ocrConfigSchema>;

/** What OCR does when `documents.ocr` is absent. */
export const DEFAULT_OCR: OcrConfig = ocrConfigSchema.parse({});

export const documentsConfigSchema = z
  .object({
    /** Largest file, refused from Content-Length before the body is read (413 document_too_large). */
    max_bytes: z
      .number()
      .int()
      .positive()
      .default(50 * 1024 * 1024),
    /** Most pages (PDF) or sections, refused as soon as the count is known (422 too_many_pages). */
    max_pages: z.number().int().positive().default(2000),
    /** A chat's documents under this many estimated tokens go to the model whole; above it, the best chunks. */
    inline_tokens: z.number().int().positive().default(6000),
    /** OCR of PDF pages with no text layer through Debian's tesseract, when it is installed (ocr.ts). */
    ocr: ocrConfigSchema.optional(),
  })
  .strict();

export type DocumentsConfig = z.output<typeof documentsConfigSchema>;

/**
 * An agent's `embedding` (docs/documents.md "Hybrid retrieval"): a model on one of the config's providers, called at
 * `<base_url>/embeddings`. With it, a chat's documents are retrieved by BM25 and vector similarity together.
 */
export const embeddingRefSchema = z
  .object({ provider_id: z.string().min(1).max(100), model: z.string().min(1).max(200) })
  .strict();

export type EmbeddingRef = z.output<typeof embeddingRefSchema>;
