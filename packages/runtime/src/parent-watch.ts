/** How often the parent is looked at: a stopped `pnpm start` frees the ports within about this. */
const PARENT_CHECK_MS = 500;

/**
 * Calls `onGone` once the package manager that started this process has gone. pnpm and npm do
 * not pass SIGTERM on to a script's process: `kill <pid of pnpm start>` (the README's
 * `kill $!`) ended pnpm with `ELIFECYCLE` and left mailstop holding its three ports. Under a
 * package manager (npm_lifecycle_event set) a new parent pid means the old one ended; anywhere
 * else (a shell with nohup, a container's init, systemd) the parent is left alone, since
 * outliving it may be the point. One look per PARENT_CHECK_MS, on a timer that keeps nothing
 * alive. Returns the function that stops watching.
 */
export function watchPackageManagerParent(onGone: () => void): () => void {
  if (!process.env.npm_lifecycle_event) return () => undefined;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, PARENT_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
