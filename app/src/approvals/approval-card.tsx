// One approval: a group named after its tool (the name tests and screen readers find it by), the tool, its server,
// its arguments as pretty JSON with long values folded, and Approve / Deny (with an optional message the model
// reads). A failed answer is said plainly on the card (409: answered elsewhere or expired; offline).
import { useState } from "preact/hooks";
import { useStore } from "../state/store.ts";
import { answerFailureText, argumentLines, respondToApproval, type Answer } from "./answer.ts";
import type { Approval } from "./approval.ts";
import "./approvals.css";
import { ErrorNotice } from "../components/error-notice.tsx";

interface Props {
  approval: Approval;
  variant: "inline" | "dialog";
  /** Called once the server took the answer (the card hides at once, before the record's update arrives). */
  onAnswered: (id: string) => void;
  /** Phone dialog only: closes it, leaving the card in the chat. */
  onLater?: () => void;
}

export function ApprovalCard({ approval, variant, onAnswered, onLater }: Props) {
  const { connection } = useStore();
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const answer = async (chosen: Answer) => {
    const client = connection.paired.value?.client;
    if (!client) return setProblem("This device is not paired.");
    setBusy(true);
    setProblem(undefined);
    try {
      await respondToApproval(client, approval, chosen);
      connection.noteCall();
      onAnswered(approval.record.id);
    } catch (error) {
      await connection.diagnose(error);
      setProblem(answerFailureText(error, connection.badge.value));
    } finally {
      setBusy(false);
    }
  };
  const deny = () => answer(message.trim() ? { response: "deny", message: message.trim() } : { response: "deny" });
  const labelId = `approval-${approval.record.id}`;
  return (
    <div
      class={`approval-card ${variant}`}
      role="group"
      aria-label={approval.name}
      data-approval-id={approval.record.id}
    >
      <p class="approval-status" role="status">
        Waiting for approval
      </p>
      <h3 class="approval-title" id={labelId}>
        Run <code>{approval.tool}</code> on <span class="approval-server">{approval.server}</span>?
      </h3>
      <dl class="approval-facts">
        <dt>Tool</dt>
        <dd>{approval.name}</dd>
        <dt>Server</dt>
        <dd>{approval.server}</dd>
      </dl>
      <ArgumentsView text={approval.argumentsText} />
      <label class="approval-message">
        <span>Message for the model if you deny (optional)</span>
        <input
          type="text"
          value={message}
          maxLength={4000}
          onInput={(event) => setMessage(event.currentTarget.value)}
        />
      </label>
      <ErrorNotice problem={problem} class="approval-problem" />
      <div class="approval-actions">
        <button type="button" class="primary" disabled={busy} onClick={() => void answer({ response: "approve" })}>
          Approve
        </button>
        <button type="button" class="danger" disabled={busy} onClick={() => void deny()}>
          Deny
        </button>
        {onLater && (
          // Focus lands here when the dialog opens: Enter must not approve by accident.
          <button type="button" class="ghost" autoFocus onClick={onLater}>
            Later
          </button>
        )}
      </div>
    </div>
  );
}

/** The arguments, a line per JSON line; a folded line opens whole on "Show all". */
function ArgumentsView({ text }: { text: string }) {
  const [unfolded, setUnfolded] = useState(false);
  const lines = argumentLines(text);
  const folded = lines.some((line) => line.full !== undefined);
  return (
    <div class="approval-arguments">
      <pre aria-label="Arguments" tabIndex={0}>
        {lines.map((line) => (unfolded ? (line.full ?? line.text) : line.text)).join("\n")}
      </pre>
      {folded && (
        <button type="button" class="ghost" aria-expanded={unfolded} onClick={() => setUnfolded(!unfolded)}>
          {unfolded ? "Fold long values" : "Show all"}
        </button>
      )}
    </div>
  );
}
