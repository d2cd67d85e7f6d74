/**
 * Files in (DESIGN.md §2, §4): a mounted `<input type="file">` hands what
 * the person chose to the realm. The host keeps each File and sends the
 * realm only a handle with its name, size and type; the realm reads the
 * bytes through a host service. Without a chooser (a renderer used on its
 * own) the realm learns nothing of the files.
 */
import { createContext } from "react";
import type { ChosenFile } from "../wire/mount";

export interface FileChooser {
  /** Keep `file` for the open session; the handle is what the realm gets. */
  register(file: File): ChosenFile;
}

export const FileChooserContext = createContext<FileChooser | undefined>(undefined);
