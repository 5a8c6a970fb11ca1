import { execFile } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { open, rm, statfs } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { onCleanup } from "./cleanup";
import { SkipCase } from "./drill";

const run = promisify(execFile);

/** A tmpfs of a fixed size mounted for one case: a disk a drill can fill. */
export class SmallDisk {
  private constructor(
    readonly path: string,
    private readonly unregister: () => void,
  ) {}

  /**
   * Mounts a tmpfs of `sizeMiB` on a new directory under `parent`. Where the kernel refuses
   * (not root, a container without CAP_SYS_ADMIN) it throws SkipCase with mount's own words.
   * The mount is registered for clean-up at once, so a failed or interrupted run unmounts it.
   */
  static async mount(parent: string, name: string, sizeMiB: number): Promise<SmallDisk> {
    const path = join(parent, name);
    mkdirSync(path, { recursive: true });
    try {
      await run("mount", ["-t", "tmpfs", "-o", `size=${sizeMiB}m,mode=0755`, "tmpfs", path]);
    } catch (error) {
      rmSync(path, { recursive: true, force: true });
      const reason = ((error as { stderr?: string }).stderr || (error as Error).message).trim().split("\n")[0];
      throw new SkipCase(`a ${sizeMiB} MiB tmpfs could not be mounted (${reason})`);
    }
    const unregister = onCleanup(`tmpfs ${path}`, () => unmount(path));
    return new SmallDisk(path, unregister);
  }

  /** Bytes still free to an unprivileged writer. */
  async freeBytes(): Promise<number> {
    const stats = await statfs(this.path);
    return stats.bavail * stats.bsize;
  }

  async release(): Promise<void> {
    this.unregister();
    await unmount(this.path);
  }
}

/** Unmounts (lazily, should a straggler still hold a file open) and removes the mount point. */
async function unmount(path: string): Promise<void> {
  await run("umount", ["--lazy", path]);
  rmSync(path, { recursive: true, force: true });
}

/**
 * A file that takes whatever space a file system has left: `fill` writes until ENOSPC (in
 * 1 MiB writes, then 4 KiB ones for the last pages), and may be called again to take back what
 * was freed meanwhile (a refused transaction's partial object deleted); `remove` gives it all back.
 */
export class Filler {
  private bytes = 0;

  constructor(readonly path: string) {}

  get size(): number {
    return this.bytes;
  }

  /** Writes until the disk is full; resolves with the bytes this call added. */
  async fill(): Promise<number> {
    const file = await open(this.path, "a");
    let added = 0;
    try {
      for (const chunk of [Buffer.alloc(1 << 20, 0x66), Buffer.alloc(4096, 0x66)]) {
        for (;;) {
          try {
            const { bytesWritten } = await file.write(chunk);
            added += bytesWritten;
            if (bytesWritten < chunk.length) break;
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === "ENOSPC") break;
            throw error;
          }
        }
      }
    } finally {
      await file.close();
    }
    this.bytes += added;
    return added;
  }

  async remove(): Promise<void> {
    await rm(this.path, { force: true });
    this.bytes = 0;
  }
}
