// Binds one of the client library's observables (status, notification views) to a component's state.
import { useEffect, useState } from "preact/hooks";
import type { Observable } from "../../../client/index.ts";

export function useObservable<T>(observable: Observable<T> | undefined, fallback: T): T {
  const [value, setValue] = useState<T>(() => observable?.get() ?? fallback);
  useEffect(() => {
    if (!observable) return setValue(fallback);
    setValue(observable.get());
    return observable.subscribe(setValue);
  }, [observable]);
  return value;
}
