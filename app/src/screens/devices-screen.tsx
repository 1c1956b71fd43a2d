// Devices (admin): the admin token entered once, then every paired device with when it was paired, when it was last
// seen and whether it is connected now, a revoke button, and "Add device". A failure is said, never left as
// "Loading…".
import { useEffect, useState } from "preact/hooks";
import { UnauthorizedError, type DeviceRecord, type PairingCreated } from "../../../client/index.ts";
import { AddDevice } from "../components/add-device.tsx";
import { AdminLogin } from "../components/admin-login.tsx";
import { ThisDevice } from "../components/this-device.tsx";
import { describeError } from "../state/errors.ts";
import { useStore } from "../state/store.ts";
import { relativeTime } from "../state/time.ts";

export function DevicesScreen() {
  const { admin } = useStore();
  return (
    <main class="page devices">
      <ThisDevice />
      {admin.token.value ? <DeviceList /> : <AdminLogin title="Devices" />}
    </main>
  );
}

function DeviceList() {
  const { admin, env, connection } = useStore();
  const ownId = connection.paired.value?.credentials.device_id;
  const [devices, setDevices] = useState<DeviceRecord[] | undefined>();
  const [code, setCode] = useState<PairingCreated | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const run = (work: () => Promise<void>) => {
    setProblem(undefined);
    work().catch((error: unknown) => {
      if (error instanceof UnauthorizedError) admin.forget();
      setProblem(describeError(error));
    });
  };
  const client = () => {
    const found = admin.client();
    if (!found) throw new Error("no admin token is set.");
    return found;
  };
  const reload = () => run(async () => setDevices(await client().listDevices()));
  useEffect(reload, []);
  const newCode = () => run(async () => setCode(await client().createPairing()));
  const revoke = (device: DeviceRecord) =>
    run(async () => {
      if (!env.confirm(`Remove “${device.name}”? It will have to pair again.`)) return;
      await client().revokeDevice(device.device_id);
      await reload();
    });
  const active = devices?.filter((device) => device.revoked_at === null) ?? [];
  return (
    <>
      <div class="page-head">
        <h1>Devices</h1>
        <button type="button" class="primary" onClick={newCode}>
          Add device
        </button>
      </div>
      {problem && (
        <p class="notice error" role="alert">
          {problem}
        </p>
      )}
      {code && <AddDevice code={code} onNewCode={newCode} onClose={() => (setCode(undefined), reload())} />}
      {devices === undefined ? (
        !problem && <p class="muted">Loading…</p>
      ) : active.length === 0 ? (
        <p class="muted">No device is paired yet. Choose “Add device”.</p>
      ) : (
        <ul class="device-list">
          {active.map((device) => (
            <DeviceRow
              key={device.device_id}
              device={device}
              own={device.device_id === ownId}
              onRevoke={() => revoke(device)}
            />
          ))}
        </ul>
      )}
      {devices === undefined && problem && (
        <button type="button" class="secondary" onClick={reload}>
          Try again
        </button>
      )}
      <button type="button" class="ghost" onClick={() => admin.forget()}>
        Lock (forget the admin token)
      </button>
    </>
  );
}

function DeviceRow({ device, own, onRevoke }: { device: DeviceRecord; own: boolean; onRevoke: () => void }) {
  return (
    <li class={`device card ${own ? "own" : ""}`} aria-current={own ? "true" : undefined}>
      <div>
        <strong>{device.name}</strong>
        {own && <span class="badge-this-device">This device</span>}
        <dl class="device-facts">
          <dt>Paired</dt>
          <dd>{relativeTime(device.created_at)}</dd>
          <dt>Last seen</dt>
          <dd>{device.last_seen_at ? relativeTime(device.last_seen_at) : "never"}</dd>
          <dt>Connected</dt>
          <dd>{device.connected == null ? "unknown" : device.connected ? "yes, now" : "no"}</dd>
          <dt>Encryption</dt>
          <dd>
            {device.mode === "plain"
              ? "none: the bridge sees its messages"
              : device.mode === "e2e"
                ? "end-to-end"
                : "unknown"}
          </dd>
        </dl>
      </div>
      <button type="button" class="danger" onClick={onRevoke} aria-label={`Revoke ${device.name}`}>
        Revoke
      </button>
    </li>
  );
}
