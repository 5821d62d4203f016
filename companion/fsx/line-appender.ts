import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * Appends lines to one file through a descriptor kept open between calls, with one write(2) per line. The run
 * store and the audit log each wrote every line with appendFileSync or appendFile — open, write and close, and for
 * the audit three trips through the thread pool that every answer waited for. A line written here is in the
 * kernel's hands as soon as append returns, like before: it survives the companion crashing right after (it was
 * never fsync'd, and is not now).
 *
 * The descriptor is closed after IDLE_MS without a line (a timer that does not keep the process alive), on
 * close(), and by reopen() when the file was replaced (the run store compacts by rename).
 */
export interface LineAppender {
  /** writes `text` (whole lines) at the end of the file; throws what the file system throws */
  append(text: string): void;
  /** the next append opens the file again (it was replaced) */
  reopen(): void;
  close(): void;
}

const IDLE_MS = 2_000;

export function createLineAppender(file: string, mode = 0o600): LineAppender {
  let fd: number | undefined;
  let used = false;
  let timer: NodeJS.Timeout | undefined;
  const close = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    if (fd === undefined) return;
    const open = fd;
    fd = undefined;
    try {
      closeSync(open);
    } catch {
      // nothing was left unwritten: every append has returned from write(2)
    }
  };
  return {
    append(text) {
      if (fd === undefined) {
        fd = openSync(file, 'a', mode);
        timer = setInterval(() => {
          if (!used) close();
          used = false;
        }, IDLE_MS);
        timer.unref();
      }
      used = true;
      const bytes = Buffer.from(text, 'utf8');
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    },
    reopen: close,
    close,
  };
}
