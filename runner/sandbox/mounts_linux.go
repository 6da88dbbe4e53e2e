package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Mount namespaces. Landlock only grants, and a grant on a directory
// covers everything below it, so without them a writable directory that
// holds a protected path is granted entry by entry (grants): nothing can be
// created, renamed or removed in it, the workspace's top directory
// included. Where the kernel lets the launcher have a mount namespace of
// its own, the launcher instead mounts each protected path that exists
// read-only over itself, in that namespace only, before Landlock (a
// Landlock-restricted process can neither mount nor unmount), and grants
// the workspace whole: writes into a protected path fail with EROFS,
// renaming or removing it with EBUSY, and linking out of it with EXDEV.

// errNotMountable: a protected path that is neither a directory nor a
// regular file (a symbolic link swapped in, a device...).
var errNotMountable = errors.New("not a directory or regular file")

// ProbeMounts returns the mount namespace mode the launcher (the
// executable self) can use here, trying MountsNS when this process holds
// CAP_SYS_ADMIN, then MountsUserNS; "" when neither works (a container
// without CAP_SYS_ADMIN, user namespaces disabled or restricted by
// AppArmor, mounts refused): then per-entry grants. It starts at most two
// short processes.
func ProbeMounts(self string) string {
	for _, mode := range []string{MountsNS, MountsUserNS} {
		if mode == MountsNS && !hasCap(unix.CAP_SYS_ADMIN) {
			continue
		}
		cmd := exec.Command(self, MountProbeArg, mode, strconv.Itoa(os.Getuid()), strconv.Itoa(os.Getgid()))
		cmd.Dir = filepath.Dir(self)
		cmd.SysProcAttr = &syscall.SysProcAttr{}
		nsAttr(cmd.SysProcAttr, mode)
		if cmd.Run() == nil {
			return mode
		}
	}
	return ""
}

// mountProbe is the probe's child, given its mode and the caller's user
// and group ids: the launcher's namespace setup (enterNamespace) and one
// read-only bind of its working directory, which must then be read-only.
func mountProbe(args []string) int {
	if len(args) != 3 {
		return 1
	}
	uid, err1 := strconv.Atoi(args[1])
	gid, err2 := strconv.Atoi(args[2])
	dir, err := os.Getwd()
	if err != nil || err1 != nil || err2 != nil || enterNamespace(args[0], uid, gid) != nil || bindReadOnly(dir) != nil {
		return 1
	}
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil || st.Flags&unix.ST_RDONLY == 0 {
		return 1
	}
	return 0
}

// nsAttr sets attr to start the launcher in a mount namespace of its own
// by mode (MountsNS or MountsUserNS; nothing for ""). In a user namespace
// the launcher keeps CAP_SYS_ADMIN there across its exec (an ambient
// capability), which it needs to map its ids and mount, and then drops
// with every other (dropPrivileges). The launcher maps its ids itself
// (enterNamespace): the agent, not dumpable, cannot write the maps of the
// child it starts (its /proc files belong to root).
func nsAttr(attr *syscall.SysProcAttr, mode string) {
	switch mode {
	case MountsNS:
		attr.Cloneflags |= syscall.CLONE_NEWNS
	case MountsUserNS:
		attr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
		attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	}
}

// enterNamespace readies the launcher's namespace of mode: in a user
// namespace it maps the caller's own user and group ids (uid, gid; the
// kernel accepts no other from an unprivileged caller), setgroups denied,
// so the command runs as the person; then it makes its mounts private.
func enterNamespace(mode string, uid, gid int) error {
	if mode == MountsUserNS {
		for _, w := range []struct{ file, data string }{
			{"/proc/self/setgroups", "deny"},
			{"/proc/self/gid_map", strconv.Itoa(gid) + " " + strconv.Itoa(gid) + " 1\n"},
			{"/proc/self/uid_map", strconv.Itoa(uid) + " " + strconv.Itoa(uid) + " 1\n"},
		} {
			if err := os.WriteFile(w.file, []byte(w.data), 0); err != nil {
				return err
			}
		}
	}
	return makePrivate()
}

// privatePTYs mounts a devpts instance of the command's own on /dev/pts,
// in the launcher's mount namespace: /dev/ptmx then allocates terminals
// there (Linux 4.7 and later look up the pts directory beside it), and the
// host's, where the person's own terminals and Mission Control's are, are
// not there to open: a confined command could read the keystrokes typed
// into them and draw on their screens. Where it fails, /dev/pts is not
// granted at all.
func privatePTYs() error {
	return unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620")
}

// hasCap reports whether this process holds capability c in its effective
// set.
func hasCap(c int) bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if unix.Capget(&hdr, &data[0]) != nil {
		return false
	}
	return data[c/32].Effective&(1<<(uint(c)%32)) != 0
}

// makePrivate makes every mount of this process's namespace private, so
// that no mount made in it reaches the namespace it was copied from (a
// root launcher's new namespace keeps the shared propagation of the
// host's otherwise).
func makePrivate() error { return unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "") }

// mountProtected mounts, read-only over itself, each path of protected
// (resolved) that lies strictly below a writable directory (resolved), and
// returns the paths grants must still carve: those it could not mount (a
// symbolic link, anything but a directory or regular file, a mount that
// failed), and those it did not need to mount (a writable directory that is
// a protected path or lies in one: grants drops it; a path no writable
// directory holds stays read-only without either). Missing protected paths
// are left out: nothing is there to mount, and carving around them would
// refuse every new entry beside them, which is what the mounts avoid
// (docs/configuration.md says what a command may then create). The
// caller must have made its mounts private (makePrivate) first.
func mountProtected(writable, protected []string, bind func(string) error) []string {
	var ws []string
	for _, w := range writable {
		if r, err := filepath.EvalSymlinks(w); err == nil {
			ws = append(ws, r)
		}
	}
	var left []string
	for _, p := range protected {
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			if _, lerr := os.Lstat(p); errors.Is(lerr, os.ErrNotExist) {
				continue // missing
			}
			left = append(left, p)
			continue
		}
		below := slices.ContainsFunc(ws, func(w string) bool { return r != w && within(w, r) })
		holds := slices.ContainsFunc(ws, func(w string) bool { return within(r, w) })
		if !below || holds || isLink(p) || bind(r) != nil {
			// A protected path that is a symbolic link: grants resolves
			// and carves it as before.
			left = append(left, p)
		}
	}
	return left
}

// isLink reports whether p is a symbolic link (or cannot be examined).
func isLink(p string) bool {
	fi, err := os.Lstat(p)
	return err != nil || fi.Mode()&os.ModeSymlink != 0
}

// mountNS is the identity of this process's mount namespace (0 when it
// cannot be read). The launcher mounts only in a namespace that is not
// the one of the process that wrapped it (Policy.HostNS).
func mountNS() uint64 {
	var st unix.Stat_t
	if unix.Stat("/proc/self/ns/mnt", &st) != nil {
		return 0
	}
	return st.Ino
}

// bindReadOnly mounts the directory or regular file at path read-only
// over itself. The path is opened without following any symbolic link
// (one swapped in after the walk fails the open), and the mount is made
// on what was opened: a detached copy of its mount tree (recursive: a
// copy must not reveal what mounts below it hide) made read-only (only
// that attribute changes: nosuid, nodev and noexec stay as they were,
// which a user namespace could not clear anyway) and moved onto it.
func bindReadOnly(path string) error {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if m := st.Mode & unix.S_IFMT; m != unix.S_IFDIR && m != unix.S_IFREG {
		return errNotMountable
	}
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE)
	if err != nil {
		return err
	}
	defer unix.Close(tree)
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return err
	}
	return unix.MoveMount(tree, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
}

// idOf is p's device and inode, not following a final symbolic link.
func idOf(p string) fileID {
	var st unix.Stat_t
	if unix.Lstat(p, &st) != nil {
		return fileID{}
	}
	return fileID{uint64(st.Dev), st.Ino}
}
