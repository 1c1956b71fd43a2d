// The name a browser pairs under when nobody typed one (docs/app.md "Pairing", P7): the browser's kind and a tag
// of its own, made once, so two phones of one kind are told apart in Devices, and one browser keeps its name.
import { afterEach, expect, it } from "vitest";
import { fakeClient } from "../app-dom/support/fake-env.ts";
import { nodeStore, type NodeStore } from "./support.ts";

const made: NodeStore[] = [];
afterEach(() => made.splice(0).forEach(({ store }) => store.dispose()));

it("gives two browsers of one kind two default names, and one browser the same name each time (P7)", async () => {
  const first = await nodeStore(fakeClient());
  const second = await nodeStore(fakeClient());
  made.push(first, second);
  const name = first.store.pairing.deviceName();
  expect(name).toMatch(/^Chrome on Linux \([0-9a-f]{4}\)$/);
  expect(first.store.pairing.deviceName()).toBe(name);
  expect(second.store.pairing.deviceName()).toMatch(/^Chrome on Linux \([0-9a-f]{4}\)$/);
  expect(second.store.pairing.deviceName()).not.toBe(name);
});
