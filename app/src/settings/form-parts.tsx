// Parts the settings forms share: the Save / Cancel row of an edit form (an agent, a saved prompt), and a write-only
// secret field (a connection's API key, an MCP server's bearer token: never shown back, never filled in by the browser).

export function SaveCancelRow({ saveLabel, onCancel }: { saveLabel: string; onCancel(): void }) {
  return (
    <div class="row">
      <button type="submit" class="primary">
        {saveLabel}
      </button>
      <button type="button" class="ghost" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

export function SecretField({ label, value, onInput }: { label: string; value: string; onInput(value: string): void }) {
  return (
    <label>
      {label}
      <input type="password" value={value} onInput={(e) => onInput(e.currentTarget.value)} autoComplete="off" />
    </label>
  );
}
