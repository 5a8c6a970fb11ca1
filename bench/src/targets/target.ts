/** The servers the benchmark compares, each started by the benchmark itself. */
export type TargetName = "mailstop" | "mailstop-dir" | "mailstop-embedded" | "mailstop-fleet" | "ceiling" | "floor" | "maildev" | "postfix";

export const TARGET_LABELS: Record<TargetName, string> = {
  mailstop: "mailstop",
  "mailstop-dir": "mailstop, directory store",
  "mailstop-embedded": "mailstop embedded (`pnpm start`)",
  "mailstop-fleet": "mailstop split fleet",
  ceiling: "ceiling (smtp-server, discard)",
  floor: "durable floor (smtp-server + fsync)",
  maildev: "MailDev",
  postfix: "Postfix → Maildir",
};

/** Where one scenario's mail goes, and how much of it can be read back yet. */
export interface Destination {
  address: string;
  /** How many messages sent here are visible: through the API where the server has one. */
  visible(): Promise<number>;
}

export interface Target {
  name: TargetName;
  smtpPort: number;
  /** The server's process (for RSS). */
  pid: number;
  /** A fresh destination named after `tag`. */
  destination(tag: string): Promise<Destination>;
  stop(): Promise<void>;
}
