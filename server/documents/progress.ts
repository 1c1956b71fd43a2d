// How often a document's progress is published (docs/documents.md "Reading"): at most once a second and per 5%, and
// never for the last page (the end is always published, with the status). Each report is a `document_updated` event
// the bridge keeps for replay: more would push chat events out of its window.

/** A gate for `total` pages: true when `done` pages are worth a report now. */
export function progressGate(total: number, now: () => number): (done: number) => boolean {
  let reported = { at: -Infinity, done: 0 };
  return (done) => {
    const at = now();
    if (at - reported.at < 1000 || (done - reported.done) * 20 < total || done >= total) return false;
    reported = { at, done };
    return true;
  };
}
