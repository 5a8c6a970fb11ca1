// The Node.js mailstop runs on: 22.12 or newer (package.json "engines"), 24 recommended. Checked
// before anything else is loaded, so an older Node gets one line saying what to install instead
// of the stack trace of the first library that needs a newer one. Plain ES2015 on purpose: it
// must parse on any Node a newcomer may have.
"use strict";

const MINIMUM = { major: 22, minor: 12 };

/** The line to print when `version` (a `process.version`, "v20.20.2") is too old; null when it will do. */
function unsupported(version) {
  const [major, minor] = String(version).replace(/^v/, "").split(".").map(Number);
  if (major > MINIMUM.major || (major === MINIMUM.major && minor >= MINIMUM.minor)) return null;
  return (
    `mailstop needs Node.js ${MINIMUM.major}.${MINIMUM.minor} or newer (24 recommended), this is Node.js ${version}: ` +
    "run `nvm install 24` (the repository's .nvmrc says 24), or the Docker image (README, \"Supported Node.js\")"
  );
}

/** Exits with status 1 and that line on an unsupported Node; returns otherwise. */
function exitUnlessSupported() {
  const line = unsupported(process.version);
  if (line === null) return;
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

module.exports = { MINIMUM, unsupported, exitUnlessSupported };
