// True on screens wide enough for the sidebar and the notification rail (the desktop layout).
import { useEffect, useState } from "preact/hooks";

export const WIDE_SCREEN_QUERY = "(min-width: 900px)";

export function useWideScreen(): boolean {
  const [wide, setWide] = useState(() => matchMedia(WIDE_SCREEN_QUERY).matches);
  useEffect(() => {
    const media = matchMedia(WIDE_SCREEN_QUERY);
    const update = () => setWide(media.matches);
    media.addEventListener("change", update);
    return () => media.removeEventListener("change", update);
  }, []);
  return wide;
}
