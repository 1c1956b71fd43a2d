// The person's library as last listed, shared by the sent messages' chips (their names): one GET /documents per page
// rather than one per message, listed again once a document is added (its chip would otherwise say "Document").
import type { ChatClient, DocumentRecord } from "../../../client/index.ts";

let listed: Promise<DocumentRecord[]> | undefined;

export function libraryOf(client: ChatClient): Promise<DocumentRecord[]> {
  listed ??= client.listDocuments().catch(() => ((listed = undefined), []));
  return listed;
}

export function forgetLibrary(): void {
  listed = undefined;
}
