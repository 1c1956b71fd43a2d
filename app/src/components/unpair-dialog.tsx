// "Unpair this device?", asked from the menu and from the Devices screen alike: on Unpair it closes, then unpairs
// (state/unpair.ts); a failure is handed back as the sentence the place shows.
import { describeError } from "../state/errors.ts";
import { useStore } from "../state/store.ts";
import { unpairThisDevice } from "../state/unpair.ts";
import { ConfirmDialog } from "./confirm-dialog.tsx";

interface Props {
  onClose(): void;
  onProblem(problem: string): void;
}

export function UnpairDialog({ onClose, onProblem }: Props) {
  const { connection } = useStore();
  const unpair = () => {
    onClose();
    unpairThisDevice(connection).catch((error: unknown) =>
      onProblem(`Not unpaired: ${describeError(error, connection.badge.value)}`),
    );
  };
  return (
    <ConfirmDialog
      title="Unpair this device?"
      body="The server forgets this device and its chats are removed from this browser. You will need a new pairing code to connect again."
      confirmLabel="Unpair"
      onConfirm={unpair}
      onCancel={onClose}
    />
  );
}
