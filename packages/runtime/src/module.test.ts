import type { BlobStore } from "@mailstop/blob-store";
import type { Db } from "@mailstop/db";
import { defineModule } from "./module";

// The guarantees here are the compiler's: `pnpm typecheck` fails when an @ts-expect-error
// line stops being an error.

const lifecycle = { stop: async () => undefined, ready: async () => true };

describe("defineModule", () => {
  it("gives a factory what its module needs, and null for what it may use but the target lacks", () => {
    const definition = defineModule({
      name: "example",
      needs: ["db"],
      optional: ["blobs"],
      provides: ["smtpPorts"],
      create(dependencies) {
        const db: Db = dependencies.db;
        const blobs: BlobStore | null = dependencies.blobs;
        // @ts-expect-error: messaging is not among its needs
        void dependencies.messaging;
        void [db, blobs];
        return { ...lifecycle, start: async () => ({ smtpPorts: { receiving: 25, capture: 587 } }) };
      },
    });
    expect(definition.needs).toEqual(["db"]);
  });

  it("makes start resolve with what the module provides", () => {
    const definition = defineModule({
      name: "example",
      needs: [],
      provides: ["smtpPorts"],
      // @ts-expect-error: start resolves without smtpPorts
      create: () => ({ ...lifecycle, start: async () => ({}) }),
    });
    expect(definition.provides).toEqual(["smtpPorts"]);
  });

  it("knows only the names of Provided", () => {
    // @ts-expect-error: nothing provides "cache"
    const definition = defineModule({ name: "example", needs: ["cache"], create: () => ({ ...lifecycle, start: async () => undefined }) });
    expect(definition.name).toBe("example");
  });
});
