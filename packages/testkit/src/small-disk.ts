import { execFileSync } from "node:child_process";
import { closeSync, fstatSync, ftruncateSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A tmpfs of a fixed size, mounted for one suite: a disk a test can fill. */
export interface SmallDisk {
  path: string;
  /** Bytes still free. */
  freeBytes(): number;
  /** Writes `<path>/filler` until ENOSPC (again after something was freed), then gives back `leaveBytes`; returns the filler's size. */
  fill(leaveBytes?: number): number;
  /** Deletes the filler. */
  free(): void;
}

/** Why a tmpfs cannot be mounted here (not root, a container without CAP_SYS_ADMIN), or null when it can. */
let refusal: string | null | undefined;
function mountRefusal(): string | null {
  if (refusal !== undefined) return refusal;
  const probe = mkdtempSync(join(tmpdir(), "mailstop-tmpfs-probe-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe], { stdio: "pipe" });
    execFileSync("umount", [probe], { stdio: "pipe" });
    refusal = null;
  } catch (error) {
    refusal = String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim().split("\n")[0] || "mount failed";
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
  return refusal;
}

function mountSmallDisk(sizeMiB: number): SmallDisk & { unmount(): void } {
  const path = mkdtempSync(join(tmpdir(), "mailstop-small-disk-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMiB}m`, "tmpfs", path], { stdio: "pipe" });
  const filler = join(path, "filler");
  return {
    path,
    freeBytes() {
      const stats = statfsSync(path);
      return stats.bavail * stats.bsize;
    },
    fill(leaveBytes = 0) {
      const fd = openSync(filler, "a");
      try {
        for (const chunk of [Buffer.alloc(1 << 20, 0x66), Buffer.alloc(4096, 0x66)]) {
          for (;;) {
            try {
              if (writeSync(fd, chunk) < chunk.length) break;
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code === "ENOSPC") break;
              throw error;
            }
          }
        }
        if (leaveBytes > 0) ftruncateSync(fd, Math.max(0, fstatSync(fd).size - leaveBytes));
        return fstatSync(fd).size;
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      // Lazily: a file a failed test left open must not keep the mount.
      execFileSync("umount", ["--lazy", path], { stdio: "pipe" });
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/**
 * A describe block with a small disk of its own (a tmpfs of `sizeMiB`, mounted before its tests
 * and unmounted after them, whatever they did). Where this machine refuses to mount one, the
 * block is skipped and its name says why.
 */
export function describeOnSmallDisk(name: string, sizeMiB: number, body: (disk: () => SmallDisk) => void): void {
  const refused = mountRefusal();
  if (refused !== null) {
    describe.skip(`${name} [a tmpfs cannot be mounted here: ${refused.replace(/[[\]]/g, "")}]`, () => body(() => unmounted()));
    return;
  }
  describe(name, () => {
    let disk: (SmallDisk & { unmount(): void }) | undefined;
    beforeAll(() => {
      disk = mountSmallDisk(sizeMiB);
    });
    afterAll(() => disk?.unmount());
    body(() => disk ?? unmounted());
  });
}

function unmounted(): never {
  throw new Error("the small disk is not mounted");
}
