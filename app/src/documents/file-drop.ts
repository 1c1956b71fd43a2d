// Files dropped on the composer are attached as if picked (images and documents alike); only drags that carry files
// are taken, so text dragged into the box still lands there.
import type { JSX } from "preact";

const carriesFiles = (event: DragEvent) => event.dataTransfer?.types.includes("Files") ?? false;

export function fileDropProps(addFiles: (files: File[]) => void): JSX.HTMLAttributes<HTMLFormElement> {
  return {
    onDragOver: (event) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
    },
    onDrop: (event) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      addFiles([...(event.dataTransfer?.files ?? [])]);
    },
  };
}
