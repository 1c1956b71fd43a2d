// Thumbnails of the images a message carries; a thumbnail opens the image at full size in a modal <dialog>
// (focus kept inside by the browser, Escape or "Close image" closes it, focus goes back to the thumbnail).
// Stored assets are fetched with the device's credentials through `loadAsset` and shown as object URLs, released
// when the row unmounts.
import { useEffect, useRef, useState } from "preact/hooks";
import { imagesOf, type ShownImage } from "../render/attachments.ts";
import "../render/render.css";

export type AssetLoader = (assetId: string) => Promise<Blob>;

interface Props {
  /** The message's metadata.attachments, as stored. */
  attachments: unknown;
  /** Fetches a stored asset; without it, stored images show as a labelled placeholder. */
  loadAsset?: AssetLoader;
}

export function AttachmentThumbnails({ attachments, loadAsset }: Props) {
  const images = imagesOf(attachments);
  const sources = useImageSources(images, loadAsset);
  const [open, setOpen] = useState<number | undefined>(undefined);
  const openers = useRef<Array<HTMLButtonElement | null>>([]);
  if (images.length === 0) return null;
  const close = () => {
    const index = open;
    setOpen(undefined);
    if (index !== undefined) openers.current[index]?.focus();
  };
  return (
    <div class="thumbnails">
      {images.map((_image, index) => {
        const src = sources[index];
        const name =
          images.length === 1 ? "View attached image" : `View attached image ${index + 1} of ${images.length}`;
        return (
          <button
            key={index}
            type="button"
            class="thumbnail"
            aria-label={name}
            disabled={!src}
            ref={(element) => void (openers.current[index] = element)}
            onClick={() => setOpen(index)}
          >
            {src ? <img src={src} alt="" loading="lazy" decoding="async" /> : <span aria-hidden="true">Image</span>}
          </button>
        );
      })}
      {open !== undefined && sources[open] && (
        <ImageDialog
          src={sources[open]!}
          label={images.length === 1 ? "Attached image" : `Attached image ${open + 1} of ${images.length}`}
          onClose={close}
        />
      )}
    </div>
  );
}

function ImageDialog({ src, label, onClose }: { src: string; label: string; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    if (dialog.current && !dialog.current.open) dialog.current.showModal();
  }, []);
  return (
    // Escape fires `cancel` then `close`; a click on the backdrop (the dialog itself, outside the figure) closes too.
    <dialog
      ref={dialog}
      class="image-dialog"
      aria-label={label}
      onClose={onClose}
      onClick={(event) => event.target === dialog.current && dialog.current?.close()}
    >
      <figure>
        <img src={src} alt={label} />
      </figure>
      <button type="button" class="image-dialog-close" onClick={() => dialog.current?.close()}>
        Close image
      </button>
    </dialog>
  );
}

/** A displayable src per image: URLs at once, stored assets once fetched (object URLs revoked on unmount). */
function useImageSources(images: ShownImage[], loadAsset: AssetLoader | undefined): Array<string | undefined> {
  const key = images.map((image) => (image.kind === "url" ? image.url : `asset:${image.assetId}`)).join("\n");
  const [assets, setAssets] = useState<Record<string, string>>({});
  useEffect(() => {
    if (!loadAsset) return;
    let live = true;
    const made: string[] = [];
    for (const image of images) {
      if (image.kind !== "asset") continue;
      loadAsset(image.assetId).then(
        (blob) => {
          const url = URL.createObjectURL(blob);
          if (!live) return URL.revokeObjectURL(url);
          made.push(url);
          setAssets((shown) => ({ ...shown, [image.assetId]: url }));
        },
        () => undefined, // stays a placeholder: the asset was deleted or the device is offline
      );
    }
    return () => {
      live = false;
      made.forEach((url) => URL.revokeObjectURL(url));
    };
  }, [key, loadAsset]);
  return images.map((image) => (image.kind === "url" ? image.url : assets[image.assetId]));
}
