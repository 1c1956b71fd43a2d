// @vitest-environment happy-dom
// Approval cards without a browser (docs/app.md "Approvals", AP1-AP4): a pending approval of the chat shows as a
// group named after its tool with the tool, its server and its arguments (pretty JSON, long values folded);
// Approve and Deny (with its optional message) post the answer with the record's revision; the card leaves at once
// when the record stops being pending (answered on another device); a 409 and an offline failure are said plainly.
import { fireEvent, screen, waitFor, within } from "@testing-library/preact";
import { describe, expect, it } from "vitest";
import { NetworkError, ResponseError, type ClientRecord, type PresentedNotification } from "../../client/index.ts";
import { fakeClient, testStore, Value, type TestStore } from "./support/fake-env.ts";
import { clearScreen, show, useScreens } from "./support/screen.ts";

const LONG = "x".repeat(500);

function approvalRecord(overrides: Partial<ClientRecord> = {}): ClientRecord {
  return {
    id: "n1",
    revision: 3,
    key: "approval:r1:0",
    kind: "interaction",
    status: "pending_response",
    severity: "warning",
    title: "Approve mcp__files__write_file",
    body: "{}",
    created_at: "2026-11-27T08:00:00Z",
    updated_at: "2026-11-27T08:00:00Z",
    request_id: "r1",
    session_id: "s1",
    source: { plugin: "mcp:files" },
    display: {
      presentation: "modal",
      approval: {
        server: "files",
        tool: "write_file",
        name: "mcp__files__write_file",
        tool_call_id: "c1",
        arguments: { path: "/tmp/notes.txt", content: LONG },
      },
    },
    retention: { version: 1, policy: "until_request_complete" },
    model_visibility: "hidden",
    ...overrides,
  } as ClientRecord;
}

function presented(record: ClientRecord): PresentedNotification {
  return {
    record,
    scope: { scope: "session", session_id: "s1" },
    decision: { presented: true, presentation: "modal" },
  } as unknown as PresentedNotification;
}

interface Setup {
  records: Value<readonly PresentedNotification[]>;
  posted: Array<{ path: string; body: unknown }>;
  setup: TestStore;
}

async function chatWithApproval(
  answer: (body: unknown) => Promise<unknown>,
  status: "live" | "offline" = "live",
): Promise<Setup> {
  const records = new Value<readonly PresentedNotification[]>([presented(approvalRecord())]);
  const posted: Setup["posted"] = [];
  const client = fakeClient({
    loadMessages: () =>
      Promise.resolve({
        messages: [{ role: "user", content: "write my notes" }],
        cursor_event_id: "0".repeat(20),
        events: [],
        dispose: () => undefined,
      }),
    // The chat's title refresh: left unanswered, it is not what these tests look at.
    getSession: () => new Promise(() => undefined),
    // The library's call for POST /sessions/{id}/notifications/{id}/respond, recorded as the route it calls.
    respondToInteraction: (session_id: never, notification_id: never, body: never) => (
      posted.push({ path: `/sessions/${session_id}/notifications/${notification_id}/respond`, body }),
      answer(body)
    ),
  });
  client.status.set({ state: status } as never);
  (client.client.notifications as unknown as { session: () => unknown }).session = () => records;
  const setup = await testStore({ client, hash: "#/s/s1" });
  show(setup);
  await screen.findByText("write my notes");
  return { records, posted, setup };
}

useScreens({ sized: true });

describe("approval cards", () => {
  it("shows the tool, its server and its arguments folded, in a group named after the tool, and approves (AP1)", async () => {
    const { posted } = await chatWithApproval(async () => approvalRecord({ status: "responded" }));
    const card = await screen.findByRole("group", { name: "mcp__files__write_file" });
    expect(within(card).getByText("Waiting for approval")).toBeTruthy();
    expect(within(card).getByText("files", { selector: "dd" })).toBeTruthy();
    const args = within(card).getByLabelText("Arguments");
    expect(args.textContent).toContain('"path": "/tmp/notes.txt"');
    // The 500-character value is folded until asked for.
    expect(args.textContent).not.toContain(LONG);
    fireEvent.click(within(card).getByRole("button", { name: "Show all" }));
    expect(args.textContent).toContain(LONG);
    // The generic notification card does not show the approval a second time.
    expect(screen.queryByRole("button", { name: /Dismiss/ })).toBeNull();
    fireEvent.click(within(card).getByRole("button", { name: "Approve" }));
    await waitFor(() => expect(screen.queryByRole("group", { name: "mcp__files__write_file" })).toBeNull());
    expect(posted).toEqual([
      { path: "/sessions/s1/notifications/n1/respond", body: { response: "approve", expected_revision: 3 } },
    ]);
  });

  it("denies with the optional message (AP2)", async () => {
    const { posted } = await chatWithApproval(async () => approvalRecord({ status: "responded" }));
    const card = await screen.findByRole("group", { name: "mcp__files__write_file" });
    fireEvent.input(within(card).getByRole("textbox", { name: /Message for the model/ }), {
      target: { value: "not that file" },
    });
    fireEvent.click(within(card).getByRole("button", { name: "Deny" }));
    await waitFor(() => expect(posted).toHaveLength(1));
    expect(posted[0]!.body).toEqual({ response: "deny", message: "not that file", expected_revision: 3 });
  });

  it("closes at once when the record is answered elsewhere (AP3)", async () => {
    const { records } = await chatWithApproval(async () => undefined);
    await screen.findByRole("group", { name: "mcp__files__write_file" });
    records.set([presented(approvalRecord({ status: "responded", revision: 4 }))]);
    await waitFor(() => expect(screen.queryByRole("group", { name: "mcp__files__write_file" })).toBeNull());
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("says plainly when the approval was already answered (409) or the device is offline (AP4)", async () => {
    const conflict = new ResponseError(409, undefined, approvalRecord({ status: "resolved" }), "conflict");
    await chatWithApproval(() => Promise.reject(conflict));
    let card = await screen.findByRole("group", { name: "mcp__files__write_file" });
    fireEvent.click(within(card).getByRole("button", { name: "Approve" }));
    expect((await within(card).findByRole("alert")).textContent).toBe(
      "This approval was already answered (perhaps on another device).",
    );
    clearScreen();

    const expired = new ResponseError(409, undefined, approvalRecord({ status: "expired" }), "conflict");
    await chatWithApproval(() => Promise.reject(expired));
    card = await screen.findByRole("group", { name: "mcp__files__write_file" });
    fireEvent.click(within(card).getByRole("button", { name: "Deny" }));
    expect((await within(card).findByRole("alert")).textContent).toContain("This approval has expired");
    clearScreen();

    await chatWithApproval(() => Promise.reject(new NetworkError("fetch failed")), "offline");
    card = await screen.findByRole("group", { name: "mcp__files__write_file" });
    fireEvent.click(within(card).getByRole("button", { name: "Approve" }));
    expect((await within(card).findByRole("alert")).textContent).toBe(
      "The answer was not sent: this device is offline. Check its network connection.",
    );
    expect(screen.getByRole("group", { name: "mcp__files__write_file" })).toBeTruthy();
  });
});
