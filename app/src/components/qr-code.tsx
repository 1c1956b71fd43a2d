// A QR code of `text`, encoded by uqr (never by hand) and shown as an image with a text alternative.
import { useMemo } from "preact/hooks";
import { renderSVG } from "uqr";

export function QrCode({ text, label }: { text: string; label: string }) {
  const src = useMemo(
    () => `data:image/svg+xml;charset=utf-8,${encodeURIComponent(renderSVG(text, { ecc: "M", border: 2 }))}`,
    [text],
  );
  return <img class="qr" src={src} alt={label} width="240" height="240" />;
}
