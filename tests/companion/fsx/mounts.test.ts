/**
 * Which mounted file systems may keep a call waiting on something other than this machine (companion/fsx/mounts.ts):
 * read from the kernel's own table as Linux writes it, and from macOS's `mount`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allFileSystemsLocal, mountOf, parseMacMount, parseMountinfo, remoteMounts } from '../../../companion/fsx/mounts';

// lines as /proc/self/mountinfo has them on a desktop with a NAS, an sshfs folder and WSL's Windows drive
const MOUNTINFO = [
  '22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw',
  '23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw',
  '24 23 0:22 / /proc/sys/fs/binfmt_misc rw,relatime shared:13 - autofs systemd-1 rw,fd=29,pgrp=1',
  '25 22 0:5 / /dev rw,nosuid shared:2 - devtmpfs udev rw,size=8000000k',
  '26 22 0:25 / /tmp rw,nosuid,nodev shared:3 - tmpfs tmpfs rw',
  '27 22 0:48 / /run/user/1000/gvfs rw,nosuid,nodev,relatime shared:40 - fuse.gvfsd-fuse gvfsd-fuse rw,user_id=1000',
  '28 22 0:49 / /run/user/1000/doc rw,nosuid,nodev,relatime shared:41 - fuse.portal portal rw,user_id=1000',
  '29 22 7:3 / /snap/core22/1380 ro,nodev,relatime shared:30 - squashfs /dev/loop3 ro',
  '30 22 0:50 / /home/me/NAS\\040share rw,relatime shared:50 - nfs4 nas.local:/export rw,vers=4.2',
  '31 22 0:51 / /home/me/remote rw,nosuid,nodev,relatime shared:51 - fuse.sshfs me@host:/srv rw,user_id=1000',
  '32 22 0:52 / /mnt/c rw,noatime shared:52 - 9p C:\\134 rw,aname=drvfs',
  '33 22 0:53 / /var/lib/docker/overlay2/abc/merged rw,relatime - overlay overlay rw,lowerdir=/a,upperdir=/b',
  '34 22 0:54 / /boot/efi rw,relatime shared:60 - autofs systemd-1 rw,fd=45,pgrp=1',
].join('\n');

describe('mounts', () => {
  it('reads the mount points and types of /proc/self/mountinfo, escapes undone', () => {
    const mounts = parseMountinfo(MOUNTINFO);
    expect(mounts).toHaveLength(13);
    expect(mounts.find((m) => m.type === 'nfs4')?.mountPoint).toBe('/home/me/NAS share');
    expect(mounts.find((m) => m.mountPoint === '/')).toEqual({ mountPoint: '/', type: 'ext4', local: true });
  });

  it('counts network and FUSE file systems as remote, except those no tool call reaches (/proc, /sys, /dev, /run/user); an automount by what it mounted', () => {
    expect(remoteMounts(parseMountinfo(MOUNTINFO)).map((m) => `${m.type} ${m.mountPoint}`)).toEqual([
      'nfs4 /home/me/NAS share',
      'fuse.sshfs /home/me/remote',
      '9p /mnt/c',
    ]);
    // a desktop with none of them: only local disks, the kernel's trees and the per-user FUSE mounts
    const desktop = MOUNTINFO.split('\n').filter((line) => !/ - (nfs4|fuse\.sshfs|9p) /.test(line)).join('\n');
    expect(remoteMounts(parseMountinfo(desktop))).toEqual([]);
  });

  it('a type it does not know is remote: the main thread is kept for what is known to be local', () => {
    expect(remoteMounts(parseMountinfo('40 22 0:60 / /data rw - lustre 10.0.0.1@tcp:/fs rw')).map((m) => m.type)).toEqual(['lustre']);
  });

  it('names the mount that holds a path: the longest mount point above it', () => {
    const mounts = parseMountinfo(MOUNTINFO);
    expect(mountOf('/home/me/NAS share/docs/a.txt', mounts)?.type).toBe('nfs4');
    expect(mountOf('/home/me/NAS shared/a.txt', mounts)?.type).toBe('ext4');
    expect(mountOf('/home/me/remote', mounts)?.type).toBe('fuse.sshfs');
    expect(mountOf('/tmp/x', mounts)?.type).toBe('tmpfs');
  });

  it("reads macOS's mount: `local` among the flags", () => {
    const mounts = parseMacMount(
      [
        '/dev/disk3s1s1 on / (apfs, sealed, local, read-only, journaled)',
        '/dev/disk3s5 on /System/Volumes/Data (apfs, local, journaled, nobrowse, protect, root data)',
        'map auto_home on /System/Volumes/Data/home (autofs, automounted, nobrowse)',
        '//me@nas._smb._tcp.local/Share on /Volumes/Share (smbfs, nodev, nosuid, mounted by me)',
        '/dev/disk4s1 on /Volumes/My Disk (apfs, local, nodev, nosuid, journaled, noowners)',
      ].join('\n'),
    );
    expect(mounts.map((m) => `${m.local ? 'local' : 'remote'} ${m.type} ${m.mountPoint}`)).toEqual([
      'local apfs /',
      'local apfs /System/Volumes/Data',
      'local autofs /System/Volumes/Data/home',
      'remote smbfs /Volumes/Share',
      'local apfs /Volumes/My Disk',
    ]);
    expect(remoteMounts(mounts).map((m) => m.mountPoint)).toEqual(['/Volumes/Share']);
  });

  it.runIf(process.platform === 'linux')("on this machine, answers from the kernel's table", () => {
    expect(allFileSystemsLocal()).toBe(remoteMounts(parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8'))).length === 0);
  });
});
