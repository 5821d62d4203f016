import { execFile } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';

/**
 * Whether every file system mounted on this machine answers from this machine: the condition for doing a tool
 * call's file-system calls on the main thread (io-mode.ts). A call on the main thread blocks the event loop for as
 * long as the file system takes; a disk's cache answers in µs, but an NFS, SMB or sshfs server that stopped
 * answering would freeze the whole companion — status, approvals, Stop — for as long as it hangs. Through the
 * thread pool it only holds a pool thread. So the main thread is used only while no such file system is mounted
 * anywhere (a symlink inside a root may lead into one before the path guard sees where it ends); a machine with
 * one keeps every call in the pool, as before that speed-up.
 *
 * Linux: /proc/self/mountinfo, the kernel's table (reading it never waits for a file system), looked at again
 * when the answer is older than RECHECK_MS. macOS: `mount`, whose lines say `local` for local file systems, run in
 * the background at first use and every MAC_RECHECK_MS; until it answers, the pool. Elsewhere: the pool.
 */

/**
 * File systems that live on this machine's disks or memory, and the kernel's own. Any other type counts as remote.
 * autofs is the trigger of an automount (systemd's for /boot or /efi, macOS's auto_home, which every Mac has): what
 * it mounts shows up as a mount of its own type once mounted, and is judged by that.
 */
const LOCAL_TYPES = new Set([
  'ext2', 'ext3', 'ext4', 'xfs', 'btrfs', 'f2fs', 'zfs', 'bcachefs', 'jfs', 'reiserfs', 'nilfs2',
  'tmpfs', 'ramfs', 'overlay', 'squashfs', 'erofs', 'iso9660', 'udf', 'vfat', 'msdos', 'exfat', 'ntfs3', 'hfsplus',
  'proc', 'sysfs', 'devtmpfs', 'devpts', 'cgroup', 'cgroup2', 'securityfs', 'pstore', 'bpf', 'tracefs', 'debugfs',
  'mqueue', 'hugetlbfs', 'configfs', 'fusectl', 'binfmt_misc', 'efivarfs', 'nsfs', 'rpc_pipefs', 'selinuxfs', 'autofs',
]);

/**
 * Mounts no tool call reaches: the kernel's trees, and the desktop's per-user FUSE mounts (GNOME's gvfs and the
 * document portal under /run/user/<uid>), which nearly every Linux desktop has and no project lives in.
 */
const OUT_OF_REACH = ['/proc', '/sys', '/dev', '/run/user'];

export interface Mount {
  mountPoint: string;
  type: string;
  local: boolean;
}

/** `\040` and the like: how mountinfo writes a space, tab, newline or backslash in a path. */
function unescapeOctal(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** The lines of /proc/self/mountinfo: `id parent major:minor root mountPoint options [optional...] - type source super`. */
export function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    const mountPoint = fields[4];
    const type = fields[separator + 1];
    if (separator < 0 || mountPoint === undefined || type === undefined) continue;
    mounts.push({ mountPoint: unescapeOctal(mountPoint), type, local: LOCAL_TYPES.has(type) });
  }
  return mounts;
}

/** The lines of macOS's `mount`: `/dev/disk3s1s1 on / (apfs, sealed, local, read-only, journaled)`, type first. */
export function parseMacMount(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const match = / on (.+) \(([^()]*)\)$/.exec(line);
    if (!match) continue;
    const [type = '', ...flags] = match[2]!.split(',').map((flag) => flag.trim());
    mounts.push({ mountPoint: match[1]!, type, local: flags.includes('local') || type === 'autofs' });
  }
  return mounts;
}

function outOfReach(mountPoint: string): boolean {
  return OUT_OF_REACH.some((dir) => mountPoint === dir || mountPoint.startsWith(`${dir}/`));
}

/** The mounts that may wait on something other than this machine's disks (a network, a FUSE program). */
export function remoteMounts(mounts: readonly Mount[]): Mount[] {
  return mounts.filter((mount) => !mount.local && !outOfReach(mount.mountPoint));
}

/** The mount that holds `path`: the one with the longest mount point above it (the last of equals, as mounted last). */
export function mountOf(path: string, mounts: readonly Mount[]): Mount | undefined {
  let best: Mount | undefined;
  for (const mount of mounts) {
    const point = mount.mountPoint;
    const holds = point === '/' || path === point || path.startsWith(point.endsWith('/') ? point : `${point}/`);
    if (holds && (best === undefined || point.length >= best.mountPoint.length)) best = mount;
  }
  return best;
}

/** Linux's mount table as the kernel keeps it; reading it never waits for a file system. */
function linuxMounts(): Mount[] {
  return parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8'));
}

/** Linux: the network or FUSE mount that holds `path` (for a warning at start); undefined when local or not known. */
export function remoteMountHolding(path: string): Mount | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const mount = mountOf(realpathSync(path), linuxMounts());
    return mount && !mount.local ? mount : undefined;
  } catch {
    return undefined;
  }
}

const RECHECK_MS = 5_000;
const MAC_RECHECK_MS = 30_000;

/** The mount table as last read (undefined: not known here), and when. */
let table: { mounts: Mount[] | undefined; at: number } | undefined;
let macStarted = false;

function refreshMac(): void {
  execFile('mount', [], { timeout: 10_000 }, (error, stdout) => {
    table = { mounts: error ? undefined : parseMacMount(stdout), at: Date.now() };
  });
}

/** The mounts as the system lists them now (Linux: at most RECHECK_MS old; macOS: the background answer). */
function currentMounts(): Mount[] | undefined {
  if (process.platform === 'linux') {
    const now = Date.now();
    if (table === undefined || now - table.at > RECHECK_MS) {
      let mounts: Mount[] | undefined;
      try {
        mounts = linuxMounts();
      } catch {
        // no /proc (a container without it): not known
      }
      table = { mounts, at: now };
    }
    return table.mounts;
  }
  if (process.platform === 'darwin') {
    if (!macStarted) {
      macStarted = true;
      refreshMac();
      setInterval(refreshMac, MAC_RECHECK_MS).unref();
    }
    return table?.mounts;
  }
  return undefined;
}

/** Every file system here answers from this machine (see above); false where that cannot be told. */
export function allFileSystemsLocal(): boolean {
  const mounts = currentMounts();
  return mounts !== undefined && remoteMounts(mounts).length === 0;
}

/**
 * Whether `path`, as written (no symlink followed), is on a network or FUSE file system — /run/user's too — from
 * the mount table alone, so asking never waits on it. False where the table is not known.
 */
export function onRemoteMount(path: string): boolean {
  return remoteMountAt(path) !== undefined;
}

/** The network or FUSE mount that holds `path` as written, from the mount table alone; undefined when local or not known. */
export function remoteMountAt(path: string): Mount | undefined {
  const mounts = currentMounts();
  // asked for every folder a write's decision looks at: a table with no such mount (the usual one) needs no search
  if (mounts === undefined || !holdsNonLocal(mounts)) return undefined;
  const mount = mountOf(path, mounts);
  return mount !== undefined && !mount.local ? mount : undefined;
}

const nonLocalIn = new WeakMap<readonly Mount[], boolean>();

function holdsNonLocal(mounts: readonly Mount[]): boolean {
  let holds = nonLocalIn.get(mounts);
  if (holds === undefined) nonLocalIn.set(mounts, (holds = mounts.some((mount) => !mount.local)));
  return holds;
}
