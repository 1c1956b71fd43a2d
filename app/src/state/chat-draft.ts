// The composer's draft: the text and the attachments not sent yet, the reason the last send or pick was refused, and
// whether a send is under way. A failed send keeps the text and the attachments; its "Not sent" note goes away by
// itself once the server is back (the badge returns to Live or Polling), since it no longer says what is true.
import { effect, signal, type ReadonlySignal } from "@preact/signals";
import type { AgentView } from "../../../client/index.ts";
import { pendingFile, pendingUrl, release, type PendingAttachment } from "../attachments/pending.ts";
import { refuseFile, refuseUrl } from "../attachments/rules.ts";
import { isDocumentFile } from "../documents/document-files.ts";
import { notReady, type PendingDocument } from "../documents/pending-document.ts";
import { serverAnswers, type Badge } from "./connection-status.ts";
import { describeError } from "./errors.ts";

export interface Draft {
  readonly text: ReadonlySignal<string>;
  readonly attachments: ReadonlySignal<readonly PendingAttachment[]>;
  /** Why the last send or attachment was refused (shown as an alert), or undefined. */
  readonly problem: ReadonlySignal<string | undefined>;
  readonly sending: ReadonlySignal<boolean>;
  setText(text: string): void;
  addFiles(files: Iterable<File>): void;
  /** Adds an image link; false (with the reason in `problem`) when the agent or the rules refuse it. */
  addUrl(url: string): boolean;
  removeAttachment(id: string): void;
  /** Adds a document already in the library (the "#" picker). */
  addDocument(document: PendingDocument): void;
  /** Sends the draft (unless empty, blocked or already sending); resolves whether it was sent. */
  submit(): Promise<boolean>;
  dispose(): void;
}

export interface DraftDeps {
  agent: ReadonlySignal<AgentView | undefined>;
  /** True while a reply streams or the chat is read-only: nothing is sent. */
  blocked: ReadonlySignal<boolean>;
  badge: ReadonlySignal<Badge>;
  send(text: string, attachments: PendingAttachment[]): Promise<void>;
  /** Starts adding a picked document file to the library; undefined when no device is paired. */
  uploadDocument(file: File): PendingDocument | undefined;
}

export function createDraft(deps: DraftDeps): Draft {
  const text = signal("");
  const attachments = signal<readonly PendingAttachment[]>([]);
  const problem = signal<string | undefined>(undefined);
  const sending = signal(false);
  /** The badge when a send failed: the note is cleared when the badge comes back from there. */
  let failedWhile: Badge | undefined;
  const stopWatching = effect(() => {
    const badge = deps.badge.value;
    if (failedWhile === undefined || !serverAnswers(badge) || serverAnswers(failedWhile)) return;
    failedWhile = undefined;
    problem.value = undefined;
  });
  const refuse = (reason: string) => ((failedWhile = undefined), (problem.value = reason));

  return {
    text,
    attachments,
    problem,
    sending,
    setText: (next) => void (text.value = next),
    addFiles(files) {
      for (const file of files) {
        if (isDocumentFile(file)) {
          const document = deps.uploadDocument(file);
          if (!document) return void refuse("Documents can be attached once this device is paired.");
          attachments.value = [...attachments.value, document];
          continue;
        }
        const refusal = refuseFile(file, deps.agent.value);
        if (refusal) return void refuse(refusal);
        attachments.value = [...attachments.value, pendingFile(file)];
      }
      problem.value = undefined;
    },
    addUrl(url) {
      const refusal = refuseUrl(url, deps.agent.value);
      if (refusal) return (refuse(refusal), false);
      attachments.value = [...attachments.value, pendingUrl(url)];
      problem.value = undefined;
      return true;
    },
    addDocument(document) {
      attachments.value = [...attachments.value, document];
      problem.value = undefined;
    },
    removeAttachment(id) {
      attachments.value = attachments.value.filter((item) => (item.id === id ? (release(item), false) : true));
    },
    async submit() {
      const empty = text.value.trim() === "" && attachments.value.length === 0;
      if (sending.value || deps.blocked.value || empty) return false;
      const waiting = documentsNotReady(attachments.value);
      if (waiting) return (refuse(waiting), false);
      sending.value = true;
      problem.value = undefined;
      try {
        await deps.send(text.value, [...attachments.value]);
        attachments.value.forEach(release);
        text.value = "";
        attachments.value = [];
        return true;
      } catch (error) {
        failedWhile = deps.badge.value;
        problem.value = `Not sent: ${describeError(error, deps.badge.value)} Your message is still here; try again.`;
        return false;
      } finally {
        sending.value = false;
      }
    },
    dispose: () => (stopWatching(), attachments.value.forEach(release)),
  };
}

/** The first reason a draft's documents keep it from being sent (still read, or unreadable). */
function documentsNotReady(attachments: readonly PendingAttachment[]): string | undefined {
  for (const attachment of attachments) {
    const reason = attachment.kind === "document" ? notReady(attachment) : undefined;
    if (reason) return reason;
  }
  return undefined;
}
