// The first paint's side of the voice controls: each renders nothing until the voice chunk (controls.tsx) has loaded,
// then the control, which itself shows only when the server or the browser can do what it offers.
import type { ComponentProps, FunctionComponent } from "preact";
import { useEffect, useState } from "preact/hooks";

type Controls = typeof import("./controls.tsx");

let loaded: Controls | undefined;
let loading: Promise<Controls> | undefined;

function useControls(): Controls | undefined {
  const [controls, setControls] = useState(loaded);
  useEffect(() => {
    // Loaded between this render and its effect (another control's import ended meanwhile): the state read at the
    // render is still empty, so it is set here, or the control never showed (docs/voice.md, invariant 14).
    if (loaded) return void setControls(loaded);
    let live = true;
    loading ??= import("./controls.tsx").catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    loading.then(
      (module) => ((loaded = module), live && setControls(module)),
      () => undefined, // offline before the chunk was ever cached: no voice controls, the rest works
    );
    return () => void (live = false);
  }, []);
  return controls;
}

function lazyControl<K extends keyof Controls>(name: K): FunctionComponent<ComponentProps<Controls[K]>> {
  return function LazyVoiceControl(props) {
    const controls = useControls();
    const Control = controls?.[name] as FunctionComponent<ComponentProps<Controls[K]>> | undefined;
    return Control ? <Control {...props} /> : null;
  };
}

export const Dictate = lazyControl("DictateButton");
export const ReadAloud = lazyControl("ReadAloudButton");
export const ConversationMode = lazyControl("ConversationButton");
