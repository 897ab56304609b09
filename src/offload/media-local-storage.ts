import { LocalStorage, type LocalStorageOptions } from "./local-storage.js";
import { MediaStorage, type MediaStorageOptions } from "./media-storage.js";

/**
 * Media as files under a directory, for Node scripts, tests and local development. Node only
 * (it imports `node:fs` through LocalStorage): the Worker's modules never import it.
 *
 * @example
 * const agent = new Agent({ model, db, mediaStorage: new LocalMediaStorage({ directory: "./.data/media" }) });
 */
export class LocalMediaStorage extends MediaStorage {
  constructor(opts: LocalStorageOptions & MediaStorageOptions) {
    super(new LocalStorage(opts), opts);
  }
}
