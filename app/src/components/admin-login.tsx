// The admin token asked once (Devices, the admin's Settings sections) and kept in this browser only (state/admin.ts).
import { useState } from "preact/hooks";
import { useStore } from "../state/store.ts";

export function AdminLogin({ title }: { title: string }) {
  const { admin } = useStore();
  const [token, setToken] = useState("");
  return (
    <form class="card stack" onSubmit={(event) => (event.preventDefault(), token.trim() && admin.save(token.trim()))}>
      <h1>{title}</h1>
      <p class="muted">
        Enter the admin token the server printed at its first start (or ADMIN_TOKEN). It is kept in this browser only.
      </p>
      <label>
        Admin token
        <input
          type="password"
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
          autoComplete="current-password"
          required
        />
      </label>
      <button type="submit" class="primary">
        Unlock
      </button>
    </form>
  );
}
