// Connections (admin): each chat-completions backend with its address and whether a key is set; Test lists its models
// and latency or the backend's own error; the admin picks the models people see and the default. A new backend is
// added by name, base URL and API key (write-only: the server answers "set", never the key).
import { useState } from "preact/hooks";
import type { ProviderTest } from "../../../client/index.ts";
import { describeError } from "../state/errors.ts";
import { section, useAdminSettings, type AdminSettings, type Record_ } from "./use-admin-settings.ts";
import { ErrorNotice } from "../components/error-notice.tsx";
import { SecretField } from "./form-parts.tsx";

export function ConnectionsSection() {
  const settings = useAdminSettings();
  const providers = section(settings.view, "providers");
  return (
    <section class="stack" aria-label="Connections">
      <ErrorNotice problem={settings.problem} />
      {settings.view === undefined && !settings.problem && <p class="muted">Loading…</p>}
      <ul class="settings-list">
        {Object.entries(providers).map(([id, provider]) => (
          <ProviderCard key={id} id={id} provider={provider} settings={settings} />
        ))}
      </ul>
      {settings.view && <AddProvider settings={settings} />}
    </section>
  );
}

function ProviderCard({ id, provider, settings }: { id: string; provider: Record_; settings: AdminSettings }) {
  const [test, setTest] = useState<ProviderTest | undefined>();
  const [testing, setTesting] = useState(false);
  const chosen = (provider.models as string[] | undefined) ?? undefined;
  const runTest = (complete: boolean) => {
    setTesting(true);
    settings
      .api()
      .testProvider(id, { complete })
      .then(setTest, (error: unknown) => setTest({ ok: false, latency_ms: 0, models: [], error: describeError(error) }))
      .finally(() => setTesting(false));
  };
  const toggle = (model: string, on: boolean) => {
    const all = test?.models ?? chosen ?? [];
    const current = chosen ?? all;
    const next = on ? [...new Set([...current, model])] : current.filter((m) => m !== model);
    const patch: Record_ = { models: next };
    if (!on && provider.default_model === model) patch.default_model = null;
    void settings.apply({ providers: { [id]: patch } });
  };
  const makeDefault = (model: string) => void settings.apply({ providers: { [id]: { default_model: model, model } } });
  const models = test?.models ?? chosen ?? [];
  return (
    <li class="card stack provider-card">
      <div class="page-head">
        <h2>{id}</h2>
        <div class="row">
          <button type="button" class="secondary" disabled={testing} onClick={() => runTest(false)}>
            {testing ? "Testing…" : "Test"}
          </button>
          <button
            type="button"
            class="ghost"
            title="Also asks for a one-token reply (hosted backends bill it)"
            disabled={testing}
            onClick={() => runTest(true)}
          >
            Test a reply
          </button>
        </div>
      </div>
      <p class="muted">
        {String(provider.base_url)} · key {provider.api_key === "set" ? "set" : "not set"} · default{" "}
        {String(provider.default_model ?? provider.model)}
      </p>
      {test && (
        <p class={`notice ${test.ok ? "" : "error"}`} role="status">
          {test.ok
            ? `Answered in ${test.latency_ms} ms with ${test.models.length} models.`
            : `Failed after ${test.latency_ms} ms: ${test.error}`}
        </p>
      )}
      {models.length > 0 && (
        <ModelChoices
          models={models}
          chosen={chosen}
          defaultModel={provider.default_model}
          onToggle={toggle}
          onDefault={makeDefault}
        />
      )}
      <button type="button" class="ghost danger" onClick={() => void settings.apply({ providers: { [id]: null } })}>
        Remove {id}
      </button>
    </li>
  );
}

/** The backend's models with a box each (the models people see) and the default among them. */
function ModelChoices(props: {
  models: string[];
  chosen: string[] | undefined;
  defaultModel: unknown;
  onToggle: (model: string, on: boolean) => void;
  onDefault: (model: string) => void;
}) {
  const { chosen } = props;
  return (
    <fieldset class="model-choices">
      <legend>Models people see</legend>
      {props.models.map((model) => (
        <div class="model-choice" key={model}>
          <label>
            <input
              type="checkbox"
              checked={chosen === undefined || chosen.includes(model)}
              onChange={(e) => props.onToggle(model, e.currentTarget.checked)}
            />
            {model}
          </label>
          {props.defaultModel === model ? (
            <span class="badge">default</span>
          ) : (
            <button type="button" class="ghost" onClick={() => props.onDefault(model)}>
              Make default
            </button>
          )}
        </div>
      ))}
    </fieldset>
  );
}

function AddProvider({ settings }: { settings: AdminSettings }) {
  const [name, setName] = useState("");
  const [baseUrl, setBaseUrl] = useState("");
  const [apiKey, setApiKey] = useState("");
  const submit = async (event: Event) => {
    event.preventDefault();
    // "default" until a default is chosen after Test: what llama.cpp-style servers answer to.
    const provider: Record_ = { provider: "reference_compatible", base_url: baseUrl.trim(), model: "default" };
    if (apiKey) provider.api_key = apiKey;
    if (await settings.apply({ providers: { [name.trim()]: provider } })) {
      setName("");
      setBaseUrl("");
      setApiKey("");
    }
  };
  return (
    <form class="card stack" onSubmit={(e) => void submit(e)}>
      <h2>Add a connection</h2>
      <label>
        Name
        <input value={name} onInput={(e) => setName(e.currentTarget.value)} pattern="[A-Za-z0-9_-]+" required />
      </label>
      <label>
        Base URL
        <input
          type="url"
          value={baseUrl}
          placeholder="http://127.0.0.1:11434/v1"
          onInput={(e) => setBaseUrl(e.currentTarget.value)}
          required
        />
      </label>
      <SecretField label="API key (optional)" value={apiKey} onInput={setApiKey} />
      <button type="submit" class="primary">
        Add
      </button>
    </form>
  );
}
