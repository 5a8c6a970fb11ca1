import { loadOrCreateKeyFile } from "@mailstop/core";
import { SecretBox } from "@mailstop/webhooks";
import { defineModule } from "../module";

/** Where the monolith keeps the key it generated, under MAILSTOP_DATA_DIR. */
export const GENERATED_SECRETS_KEY_FILE = "secrets.key";

/**
 * The key that seals webhook secrets at rest: MAILSTOP_SECRETS_KEY, or for the monolith a key
 * generated once under the data directory. Split targets must share one key, so planTarget
 * refuses them without the setting.
 */
export const secretsModule = defineModule({
  name: "secrets",
  needs: [],
  provides: ["secrets"],
  create({ config }) {
    return {
      async start() {
        const { secretsKey } = config.webhooks;
        return { secrets: secretsKey === null ? new SecretBox(loadOrCreateKeyFile(config.dataDir, GENERATED_SECRETS_KEY_FILE)) : SecretBox.fromSetting(secretsKey) };
      },
      stop: async () => undefined,
      ready: async () => true,
    };
  },
});
