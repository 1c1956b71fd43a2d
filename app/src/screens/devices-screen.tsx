// Devices: on a paired device of a server with people, its person's devices (every person's, with their owner's
// name, for the admin role) through the device's own token; elsewhere the admin token entered once, then every
// paired device. Each with when it was paired, when it was last seen and whether it is connected now, a revoke
// button, and "Add device" (a code for this device's person). A failure is said, never left as "Loading…".
import { useEffect, useState } from "preact/hooks";
import { UnauthorizedError, type DeviceRecord, type PairingCreated } from "../../../client/index.ts";
import type { DeviceAdmin } from "../people/device-admin.ts";
import { AddDevice } from "../components/add-device.tsx";
import { AdminLogin } from "../components/admin-login.tsx";
import { ThisDevice } from "../components/this-device.tsx";
import { describeError } from "../state/errors.ts";
import { useStore } from "../state/store.ts";
import { relativeTime } from "../state/time.ts";
import { ErrorNotice } from "../components/error-notice.tsx";

export function DevicesScreen() {
  const { admin, connection, people } = useStore();
  const paired = connection.paired.value;
  // A device of a server with people lists its person's devices with its own token; the admin token, when kept, wins.
  const source: DeviceAdmin | undefined = admin.token.value
    ? admin.client()
    : paired && people.me.value
      ? paired.client
      : undefined;
  return (
    <main class="page devices">
      <ThisDevice />
      {source ? <DeviceList source={source} /> : <AdminLogin title="Devices" />}
    </main>
  );
}

function DeviceList({ source }: { source: DeviceAdmin }) {
  const { admin, env, connection, people } = useStore();
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
  const client = () => source;
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
      <ErrorNotice problem={problem} />
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
              owner={people.several.value ? people.nameOf(device.person_id) : undefined}
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
      {admin.token.value && (
        <button type="button" class="ghost" onClick={() => admin.forget()}>
          Lock (forget the admin token)
        </button>
      )}
    </>
  );
}

interface RowProps {
  device: DeviceRecord;
  own: boolean;
  /** The owner's name, on a server with more than one person. */
  owner: string | undefined;
  onRevoke(): void;
}

function DeviceRow({ device, own, owner, onRevoke }: RowProps) {
  return (
    <li class={`device card ${own ? "own" : ""}`} aria-current={own ? "true" : undefined}>
      <div>
        <strong>{device.name}</strong>
        {own && <span class="badge-this-device">This device</span>}
        <dl class="device-facts">
          {owner && (
            <>
              <dt>Belongs to</dt>
              <dd>{owner}</dd>
            </>
          )}
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
