// The composer's attachments as state: files picked, pasted or dropped (images read here,
// documents read by Rust's `read_document`, each chip busy until then), project files
// mentioned with `@` (`mention_file`) and MCP servers' resources chosen with `@`
// (`mcp_read_resource`). What cannot be attached is said through the host.
import * as ipc from '../../ipc';
import type { DocumentAttachment, McpResourceView } from '../../ipc/wire';
import {
  fileBase64,
  kindOf,
  mentioned,
  problemsText,
  reading,
  resourceAttached,
  withDocument,
  type Attachment,
} from './attachments';
import { ImageRejected, readImage } from './images';
import { resourceKey } from './mcp-entries';

/** What the attachments need of the composer. */
export interface AttachmentsHost {
  /** Whether the model takes images, and its name for the words saying it does not. */
  imagesAllowed: () => boolean;
  modelName: () => string;
  /** Says `message` in the composer's notice as an error; `null` clears the notice. */
  notify: (message: string | null) => void;
}

export class ComposerAttachments {
  /** In the order they were added. */
  list = $state.raw<readonly Attachment[]>([]);
  /** A document is being read: the message waits for it. */
  readonly busy = $derived(reading(this.list));

  #host: AttachmentsHost;
  #nextKey = 0;

  constructor(host: AttachmentsHost) {
    this.#host = host;
  }

  remove(key: number): void {
    this.list = this.list.filter((attachment) => attachment.key !== key);
  }

  /** Nothing attached (the message went). */
  clear(): void {
    this.list = [];
  }

  /** Reads a mentioned file to go with the message (once, however often it is mentioned). */
  async mention(path: string): Promise<void> {
    if (mentioned(this.list, path)) return;
    await this.#readChip({ name: path, mention: path }, () => ipc.mentionFile(path));
  }

  /** Reads an MCP server's resource to go with the message (once, however often it is chosen);
   * its chip is named as Rust names the document, `server: uri`. */
  async mentionResource(resource: McpResourceView): Promise<void> {
    const key = resourceKey(resource);
    if (resourceAttached(this.list, key)) return;
    await this.#readChip({ name: `${resource.server}: ${resource.uri}`, resource: key }, () =>
      ipc.mcpReadResource(resource.scope, resource.server, resource.uri),
    );
  }

  /** A document chip, busy until `read` answers (its size known only then); dropped with the
   * failure said when it fails. */
  async #readChip(
    fields: { name: string; mention?: string; resource?: string },
    read: () => Promise<DocumentAttachment>,
  ): Promise<void> {
    const key = this.#nextKey++;
    this.list = [...this.list, { key, kind: 'document', size: 0, document: null, ...fields }];
    try {
      const document = await read();
      // Removed while it was read: nothing to show.
      this.list = withDocument(this.list, key, document, document.size);
    } catch (raw) {
      this.remove(key);
      this.#host.notify(ipc.toArborError(raw).message);
    }
  }

  /** Adds picked, pasted or dropped files: images at once, documents read by Rust one after
   * another (each chip busy until then). What cannot be attached is said in the notice. */
  async add(files: File[]): Promise<void> {
    if (files.length === 0) return;
    const problems: string[] = [];
    const toRead: { key: number; file: File }[] = [];
    for (const file of files) {
      const kind = kindOf(file);
      if (kind.kind === 'refused') {
        problems.push(kind.message);
      } else if (kind.kind === 'image') {
        if (!this.#host.imagesAllowed()) {
          problems.push(
            `${this.#host.modelName()} does not take images: pick a model that does to attach one.`,
          );
          continue;
        }
        try {
          const image = await readImage(file);
          const key = this.#nextKey++;
          this.list = [
            ...this.list,
            { key, kind: 'image', name: file.name || 'image', size: file.size, image },
          ];
        } catch (error) {
          problems.push(
            error instanceof ImageRejected
              ? error.message
              : `${file.name || 'That image'} could not be read.`,
          );
        }
      } else {
        const key = this.#nextKey++;
        this.list = [
          ...this.list,
          { key, kind: 'document', name: file.name, size: file.size, document: null },
        ];
        toRead.push({ key, file });
      }
    }
    this.#host.notify(problemsText(problems));
    for (const { key, file } of toRead) {
      try {
        const document = await ipc.readDocument(file.name, await fileBase64(file));
        // Removed while it was read: nothing to show.
        this.list = withDocument(this.list, key, document);
      } catch (raw) {
        this.remove(key);
        this.#host.notify(ipc.toArborError(raw).message);
      }
    }
  }
}
