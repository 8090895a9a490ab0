// SPDX-License-Identifier: GPL-2.0
/*
 * Task calls while their small allocations fail, one at a time.
 *
 * Each variant creates a process (fork, vfork, clone3 with a pidfd), runs a
 * new image (execve), makes a namespace (unshare), installs a seccomp
 * filter, opens a pidfd, makes a POSIX timer, mounts a tmpfs (with
 * mount(), and with fsopen() and fsmount()), a devpts instance, the
 * mqueue filesystem, a FUSE filesystem or an overlay (and, through an
 * overlay, copies a file up, sets an xattr, renames a directory, looks up
 * a copied-up file or a renamed directory, reads a merged or an impure
 * directory, opens a file by its handle); or works on a tree of tmpfs
 * mounts: bind-mounts it (its top alone, or recursively, also with
 * open_tree() and move_mount(), and beneath a shared mount whose peer and
 * slave receive copies), moves a mount beneath that shared mount, unmounts
 * one whose copies the peer and slave hold, makes a tree read-only and
 * shared or idmaps a detached copy with mount_setattr(), asks statmount()
 * about a mount, or pivots the root; or makes a cgroup; or acts on
 * another process or on its own credentials: moves a child into a cgroup,
 * opens a cgroup's file or reads its memory.stat, makes a PSI trigger,
 * writes a sysctl, a child's uid_map or gid_map or memory
 * (process_vm_writev(), /proc/PID/mem), reads a child's environ, pagemap,
 * stack, map_files or exe link, queues a signal to a child with its
 * siginfo (pidfd_send_signal()), makes a child in a cgroup (clone3() with
 * CLONE_INTO_CGROUP), gets the parent's fd (pidfd_getfd()) into a full fd
 * table, joins another process's namespaces (setns() of a pidfd), sets
 * its groups, and updates, links, reads, chowns or restricts keys, with
 * every failslab and fail_page_alloc point on its path made to fail in
 * turn (see failnth.h).
 * The call must succeed or fail with an allowed errno. A success leaves
 * the effect whole: the child ran and exited 0 and was reaped, the pidfd
 * works, the timer runs, the new namespace, filter, mount or cgroup is
 * there and usable, the copied-up file holds the lower one's bytes; a
 * failure leaves no child, no timer (nor its signal), no namespace, no
 * filter, no mount, no copy-up (or a whole one), no cgroup behind; the
 * writes and the moves leave their state whole or as it was, read back.
 * A change to the mount tree is whole or absent in /proc/self/mountinfo:
 * every mount of a copied tree, in every place it propagates to, or none;
 * every mount's flags and propagation changed, or none; and after each
 * point the mounts under the scenarios' base are as the setup made them.
 *
 * execve(), unshare(), setns(), seccomp(), pivot_root(), setgroups() of
 * many groups and pidfd_getfd() (which grows the fd table) change the
 * caller for good, so they run in a child that arms its own fail-nth
 * (failnth_child.h); execve() is traced, so that the sweep counts the
 * points of execve() alone and not of the new image.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <linux/magic.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <mqueue.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/xattr.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "failnth_child.h"

/* Per test; the sweep's own deadline is 10 s shorter. */
#define SWEEP_TIMEOUT 60

/* argv[1] that makes this program exit at once with EXEC_CODE. */
#define EXEC_ARG "--failnth-exec-image"
#define EXEC_CODE 42

/* The cgroup v2 hierarchy, and the child the cgroup scenario makes in it. */
#define CG_ROOT "/sys/fs/cgroup"
#define CG_DIR CG_ROOT "/failnth-task"
/* CG_DIR as /proc/PID/cgroup gives it for a process in it. */
#define CG_LINE "0::/failnth-task"

/* The private tmpfs the mount scenario mounts on, and its mount point. */
#define MNT_BASE "/tmp"
#define MNT_DIR MNT_BASE "/failnth-mnt"
/* The FUSE device node the fuse scenario makes on that tmpfs (10:229). */
#define FUSE_DEV MNT_BASE "/fuse"

/*
 * The mqueue filesystem's magic (ipc/mqueue.c:51, linux 6.12: not in the
 * uapi headers), and the queue its mount must show, made beforehand in
 * this IPC namespace.
 */
#define MQUEUE_MAGIC 0x19800202
#define MQ_PROBE "failnth-probe"

/*
 * The new image of the execve scenario: this program, which exits before
 * the harness starts. glibc passes argc and argv to ELF constructors.
 */
static void __attribute__((constructor)) exec_image(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], EXEC_ARG))
		_exit(EXEC_CODE);
}

/*
 * Failed process creation: kernel/fork.c:copy_process() reports a failed
 * allocation of the task, its mm, files, signal handlers or pid as ENOMEM
 * ("retval = -ENOMEM;" before dup_task_struct(), and alloc_pid()'s own
 * ENOMEM).
 */
static const int fork_errnos[] = { ENOMEM, 0 };

/*
 * clone3() with CLONE_PIDFD stores the pidfd with put_user()
 * (kernel/fork.c:2464) after copy_mm() (kernel/fork.c:2425) has
 * write-protected the parent's private pages for copy-on-write. When the
 * page holding the caller's pidfd cannot be copied, the fault in kernel mode
 * ends in the uaccess fixup (arch/x86/mm/fault.c:1426, "Kernel mode?
 * Handle exceptions or die") and clone3() returns EFAULT: seen on x86_64
 * (run.sh --vm qemu), do_wp_page() failing under copy_process().
 */
static const int clone3_errnos[] = { ENOMEM, EFAULT, 0 };

/*
 * execve(): a failed allocation before the point of no return is ENOMEM,
 * with two exceptions in the source (linux 6.12):
 *  - E2BIG: copying argv and envp to the new stack,
 *    fs/exec.c:copy_strings() (fs/exec.c:626) and copy_string_kernel()
 *    (fs/exec.c:686) return -E2BIG whenever get_arg_page() fails, which
 *    is get_user_pages_remote() failing to allocate the stack page or a
 *    page table of the new mm;
 *  - ELIBBAD: fs/binfmt_elf.c:load_elf_binary() sets "retval = -ELIBBAD"
 *    (fs/binfmt_elf.c:946) before checking the interpreter and keeps it
 *    when load_elf_phdrs() returns NULL (fs/binfmt_elf.c:958), which it
 *    does when its kmalloc() of the program headers fails.
 */
static const int exec_errnos[] = { ENOMEM, E2BIG, ELIBBAD, 0 };

/*
 * After the point of no return execve() cannot fail back to the old image:
 * fs/exec.c:bprm_execve() has "if (bprm->point_of_no_return &&
 * !fatal_signal_pending(current)) force_fatal_sig(SIGSEGV);" (linux 6.12,
 * fs/exec.c:1922). A failed allocation in load_elf_binary() after
 * begin_new_exec() (mapping the image, the stack, the brk) ends there.
 */
static const int exec_fates[] = { SIGSEGV, 0 };

/* unshare() of a namespace: a failed allocation is ENOMEM. */
static const int ns_errnos[] = { ENOMEM, 0 };

/*
 * unshare(CLONE_NEWNET) runs every pernet init, and several turn a failed
 * allocation into another errno (linux 6.12):
 *  - EEXIST: fs/proc/proc_net.c:proc_net_ns_init() sets "err = -EEXIST"
 *    (fs/proc/proc_net.c:387) and returns it when proc_net_mkdir() of
 *    "stat" returns NULL, as it does when its allocation fails;
 *  - ENODEV: lib/kobject_uevent.c:uevent_net_init() returns -ENODEV
 *    (lib/kobject_uevent.c:787) when netlink_kernel_create() returns
 *    NULL, as it does when the socket, its inode or its listeners cannot
 *    be allocated;
 * and, with IPv4 and IPv6 (CONFIG_INET, CONFIG_IPV6):
 *  - EAFNOSUPPORT: the same, in net/ipv4/fib_frontend.c:
 *    nl_fib_lookup_init() (line 1425);
 *  - ENFILE: net/socket.c:__sock_create() when sock_alloc() cannot get
 *    its inode (line 1526), for the pernet kernel sockets;
 *  - ENOBUFS: net/ipv6/af_inet6.c:inet6_create() when sk_alloc() fails
 *    (line 192), and the sysctl registrations of
 *    net/ipv6/addrconf.c:__addrconf_sysctl_register() (line 7323) and
 *    net/core/neighbour.c:neigh_sysctl_register() (line 3890).
 * Not EINVAL: that one comes from an ENOMEM that
 * net/core/net-sysfs.c:netdev_register_kobject() ignores (F5). Not EPERM:
 * net/netfilter/x_tables.c:xt_proto_init() returns -1 (line 1943) when its
 * /proc entries cannot be created (F16).
 */
static const int net_errnos[] = {
	ENOMEM, EEXIST, ENODEV, EAFNOSUPPORT, ENFILE, ENOBUFS, 0,
};

/*
 * unshare(CLONE_NEWUSER): kernel/fork.c:ksys_unshare() calls
 * set_cred_ucounts() for the new credentials, which returns -EAGAIN
 * (kernel/cred.c:595) when alloc_ucounts() fails to allocate the ucounts
 * of the new user namespace.
 */
static const int user_errnos[] = { ENOMEM, EAGAIN, 0 };

/*
 * seccomp(SECCOMP_SET_MODE_FILTER): kernel/seccomp.c:
 * seccomp_prepare_filter() and net/core/filter.c:
 * bpf_prog_create_from_user() report every failed allocation (the filter,
 * the BPF program, its saved original, the program its classic BPF is
 * translated into) as ENOMEM (linux 6.12, kernel/seccomp.c:690,
 * net/core/filter.c:1436, 1450, 1280, 1298).
 */
static const int seccomp_errnos[] = { ENOMEM, 0 };

/* pidfd_open(): a failed pidfd file or inode allocation is ENOMEM. */
static const int pidfd_errnos[] = { ENOMEM, 0 };

/*
 * timer_create(): a timer or its preallocated signal that cannot be
 * allocated is EAGAIN, as POSIX has it (kernel/time/posix-timers.c:460,
 * linux 6.12).
 */
static const int timer_errnos[] = { EAGAIN, 0 };

/*
 * mount of a tmpfs: shmem_fill_super() makes the root inode with
 * shmem_get_inode(), and a failed inode allocation is ENOSPC:
 * mm/shmem.c:__shmem_get_inode() has "return ERR_PTR(-ENOSPC);" when
 * new_inode() fails (linux 6.12, mm/shmem.c:2903).
 */
static const int mount_errnos[] = { ENOMEM, ENOSPC, 0 };

/*
 * mount of a devpts instance, of a FUSE filesystem or of the IPC
 * namespace's mqueue filesystem: fs/devpts/inode.c, fs/fuse/inode.c and
 * ipc/mqueue.c report every failed allocation of the superblock, the
 * connection, the device, the root inode and the fs_context
 * (ipc/mqueue.c:454) as ENOMEM (linux 6.12).
 */
static const int pseudo_mount_errnos[] = { ENOMEM, 0 };

/*
 * The mount tree calls: a bind mount, a propagated copy, a move, a change
 * of propagation or flags, open_tree(), umount2() and pivot_root() report
 * a mount that cannot be allocated as ENOMEM (fs/namespace.c:1215-1217
 * and 1298-1300, alloc_vfsmnt()), and so are a mountpoint
 * (fs/namespace.c:915-917, get_mountpoint()), a mount id or peer group id
 * (lib/idr.c:470, ida_alloc_range(), returned by fs/namespace.c:249-251
 * and 268-270), an anonymous namespace (fs/namespace.c:4013-4016),
 * open_tree()'s file (fs/file_table.c:232-234), an idmapping and its
 * extents (fs/mnt_idmapping.c:252, 259 and 293), the reply of statmount()
 * (fs/namespace.c:5394 and 5494) and the path name (fs/namei.c:145-146,
 * getname_flags()), linux 6.12.
 */
static const int mt_errnos[] = { ENOMEM, 0 };

/*
 * mount of an overlay over tmpfs layers: fs/overlayfs reports a failed
 * allocation of its context, layers, entries and inodes as ENOMEM, and the
 * probe of RENAME_WHITEOUT in the work directory (super.c:692,
 * ovl_check_rename_whiteout(), linux 6.12) fails the mount with the errno
 * of the temporary file or whiteout the upper tmpfs could not make: ENOSPC
 * when its inode cannot be allocated (mm/shmem.c:2903).
 */
static const int ovl_mount_errnos[] = { ENOMEM, ENOSPC, 0 };

/*
 * open() for writing through an overlay: its copy-up makes the upper file
 * as a tmpfile of the upper tmpfs (fs/overlayfs/copy_up.c:
 * ovl_copy_up_tmpfile()), ENOSPC when its inode cannot be allocated
 * (mm/shmem.c:2903); any other failed allocation is ENOMEM.
 */
static const int ovl_copy_up_errnos[] = { ENOMEM, ENOSPC, 0 };

/*
 * rename() of a lower directory through an overlay with redirect_dir=on:
 * its copy-up makes a directory and the whiteout makes a device node in
 * the upper tmpfs, ENOSPC when their inode cannot be allocated
 * (mm/shmem.c:2903); when the redirect xattr cannot be set,
 * fs/overlayfs/dir.c:ovl_set_redirect() falls back to EXDEV ("Fall back
 * to userspace copy-up", dir.c:1091-1092, linux 6.12), which tells mv(1)
 * to copy; any other failed allocation is ENOMEM.
 */
static const int ovl_rename_errnos[] = { ENOMEM, ENOSPC, EXDEV, 0 };

/*
 * open_by_handle_at() of an overlay file: fs/overlayfs/export.c and namei.c
 * report a failed allocation of the decoded dentries, the index name, the
 * overlay entry and inode as ENOMEM (linux 6.12), as fs/fhandle.c does its
 * own.
 */
static const int ovl_handle_errnos[] = { ENOMEM, 0 };

/*
 * open() and getdents64() of a merged overlay directory, and the lookup of
 * a copied-up file or of a renamed directory: fs/overlayfs/readdir.c,
 * namei.c and util.c report a failed allocation of the directory's file,
 * its cache and entries, of the origin file handle, the redirect, the
 * lower path and the overlay inode as ENOMEM (linux 6.12).
 */
static const int ovl_readdir_errnos[] = { ENOMEM, 0 };

#define REASON_NO_TMPFS_QUOTA "no tmpfs quotas: needs CONFIG_TMPFS_QUOTA"
#define REASON_NO_STATMOUNT \
	"no statmount() or unique mount ids (%s): needs linux 6.8"
#define REASON_NO_MQUEUE "no POSIX message queues: needs CONFIG_POSIX_MQUEUE"
#define REASON_NO_MEMCG \
	"no memory controller in " CG_ROOT "/cgroup.subtree_control"

/*
 * add_key() and joining a new session keyring: security/keys/key.c and
 * keyring.c report a failed key, description, payload or keyring-slot
 * allocation (key_alloc(), user_preparse(), __key_link_begin()) as ENOMEM,
 * and so does prepare_creds() for the new session's credentials
 * (linux 6.12).
 */
static const int key_errnos[] = { ENOMEM, 0 };

/*
 * mkdir of a cgroup: kernel/cgroup/cgroup.c:cgroup_mkdir() and its
 * cgroup_create() and css_create() report every failed allocation (the
 * cgroup, its kernfs directory and files, each controller's state) as
 * ENOMEM (linux 6.12).
 */
static const int cgroup_errnos[] = { ENOMEM, 0 };

/* The state of one scenario, shared by its callbacks. */
struct task_state {
	/* A child made by the action, not yet reaped; or the one prepared. */
	pid_t pid;
	/* The action's wait: its status, or the errno of a failed wait. */
	int status;
	int wait_err;
	int pidfd;
	/* execve: the path of this program. */
	char exe[256];
	/* unshare: the flag, its /proc/self/ns entry, the inode before. */
	int ns_flag;
	const char *ns_name;
	ino_t ns_before;
	/*
	 * mount: the device of the mount point before; the new filesystem's
	 * magic, and a name its root must show (NULL: a file must be
	 * writable there); a tmpfs's mount options, and whether they turn
	 * user quotas on; fuse's FUSE device fd.
	 */
	dev_t mnt_dev;
	long mnt_magic;
	const char *mnt_probe;
	const char *mnt_data;
	bool mnt_quota;
	int fuse_fd;
	/*
	 * The mount tree scenarios: mountinfo's lines under MNT_BASE as the
	 * setup left them; the devices of MT_SRC's three mounts (pivot_root:
	 * of the old root, in [0]); of the tmpfs a point prepared.
	 */
	char mt_base[4096];
	dev_t mt_src_dev[3];
	dev_t mt_new_dev;
	/* mount_setattr_idmap: the user namespace's fd, the detached tree's. */
	int mt_userns;
	int mt_tree;
	/* overlay_copy_up: the fd its open() gave; readdir's entries. */
	int ovl_fd;
	char ovl_dents[4096];
	/* overlay_lookup_origin: what stat() gave. */
	struct stat ovl_stat;
	/* overlay_readdir_impure: read OVL_SUB, not the root. */
	bool ovl_impure;
	/* overlay_open_by_handle: the overlay's root, and the handle. */
	int ovl_root;
	struct file_handle *ovl_fh;
	/*
	 * cgroup: whether the parent gives its children the memory
	 * controller, and the cgroup.procs of this process's own cgroup.
	 */
	bool cg_memory;
	char cg_home[PATH_MAX];
	/* keys: the session keyring before the action; keyrings made. */
	int key_before;
	unsigned int key_seq;
	/*
	 * timer_create: the timer made, and the signals queued or
	 * preallocated for this user before it (/proc/self/status, "SigQ").
	 */
	timer_t timer;
	bool timer_made;
	long sigq_before;
	/*
	 * A write to a file opened in prepare (a cgroup's, /proc's): the fd,
	 * what is written, and what the file or state held before.
	 */
	int wfd;
	char wval[256];
	char wold[256];
	/* keys: the keys and keyrings prepare made for the action. */
	int key_a, key_b;
	unsigned char key_buf[64];
	/* setns: the namespaces of the parent, whose pidfd is pidfd. */
	ino_t ns_parent[3];
};

/* Reaps a child the action did not, then resets the state. */
static void task_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct task_state *st = arg;

	if (st->pid > 0) {
		ASSERT_EQ(st->pid, waitpid(st->pid, NULL, 0))
		{
			TH_LOG("reaping %d: %s", st->pid, strerror(errno));
		}
	}
	if (st->pidfd >= 0)
		ASSERT_EQ(0, close(st->pidfd));
	st->pid = 0;
	st->pidfd = -1;
	st->status = -1;
	st->wait_err = 0;
}

/* Whether the action's child exited 0 and was reaped by the action. */
static bool child_exited_0(struct task_state *st, int ret, char *why,
			   size_t size)
{
	if (ret < 0)
		return true;
	if (st->wait_err) {
		snprintf(why, size, "waiting for child %d: %s", st->pid,
			 strerror(st->wait_err));
		return false;
	}
	if (!WIFEXITED(st->status) || WEXITSTATUS(st->status)) {
		snprintf(why, size, "child ended with status 0x%x, not exit 0",
			 st->status);
		return false;
	}
	return true;
}

/* Waits for the action's child @pid, which exits at once. */
static int reap_in_action(struct task_state *st, pid_t pid)
{
	st->pid = pid;
	if (waitpid(pid, &st->status, 0) != pid) {
		st->wait_err = errno;
		return 0;
	}
	st->pid = 0;
	return 0;
}

/*
 * The action reaps the child it made, so a success leaves nothing behind;
 * a failure that made a child anyway would leave one, which the engine's
 * child check finds.
 */
#define REAPED "the action reaps its child: a success leaves no trace"

/* fork(): the child exits at once, the parent reaps it. */
static int fork_action(void *arg)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(0);
	return reap_in_action(arg, pid);
}

/* vfork(): the child exits at once, the parent reaps it. */
static int vfork_action(void *arg)
{
	pid_t pid = vfork();

	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(0);
	return reap_in_action(arg, pid);
}

/* clone3(CLONE_PIDFD): the child exits at once, reaped through its pidfd. */
static int clone3_action(void *arg)
{
	struct task_state *st = arg;
	int pidfd = -1;
	struct clone_args args = {
		.flags = CLONE_PIDFD,
		.pidfd = (uintptr_t)&pidfd,
		.exit_signal = SIGCHLD,
	};
	siginfo_t info = {};
	long pid;

	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(0);
	st->pid = pid;
	st->pidfd = pidfd;
	if (waitid(P_PIDFD, pidfd, &info, WEXITED)) {
		st->wait_err = errno;
		return 0;
	}
	st->pid = 0;
	st->status = info.si_code == CLD_EXITED ? info.si_status << 8 :
						  info.si_status;
	return 0;
}

/* Besides the exit: the pidfd is one of a reaped process. */
static bool clone3_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;

	if (!child_exited_0(st, ret, why, size))
		return false;
	if (ret < 0)
		return true;
	if (!syscall(SYS_pidfd_send_signal, st->pidfd, 0, NULL, 0) ||
	    errno != ESRCH) {
		const char *fmt =
			"pidfd %d of the reaped child: signal 0 did not fail with ESRCH";

		snprintf(why, size, fmt, st->pidfd);
		return false;
	}
	return true;
}

static bool fork_check(void *arg, int ret, char *why, size_t size)
{
	return child_exited_0(arg, ret, why, size);
}

/* pidfd_open() of a waiting child. */

static void pidfd_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;
	pid_t pid;

	pid = fork_bound();
	ASSERT_LE(0, pid);
	if (!pid) {
		pause();
		_exit(0);
	}
	st->pid = pid;
}

static int pidfd_action(void *arg)
{
	struct task_state *st = arg;
	int fd = syscall(SYS_pidfd_open, st->pid, 0);

	if (fd < 0)
		return -errno;
	st->pidfd = fd;
	return 0;
}

/* The "Pid:" of pidfd @fd's fdinfo, or -errno. */
static long pidfd_pid(int fd)
{
	char line[128];
	long pid = -ENOENT;
	FILE *f = fdinfo_open(fd);

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Pid: %ld", &pid) == 1)
			break;
	fclose(f);
	return pid;
}

/* A success: the pidfd names the child and can signal it. */
static bool pidfd_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	long pid;

	if (ret < 0)
		return true;
	pid = pidfd_pid(st->pidfd);
	if (pid != st->pid) {
		snprintf(why, size, "pidfd %d names pid %ld, not %d", st->pidfd,
			 pid, st->pid);
		return false;
	}
	if (syscall(SYS_pidfd_send_signal, st->pidfd, 0, NULL, 0)) {
		snprintf(why, size, "signal 0 through pidfd: %s",
			 strerror(errno));
		return false;
	}
	return true;
}

static void pidfd_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct task_state *st = arg;

	if (st->pid > 0)
		kill(st->pid, SIGKILL);
	task_cleanup(_metadata, arg, ret);
}

/* The filesystem type mountinfo gives MNT_DIR, in @type: 1, 0, -errno. */
static int mounted_type(char *type, size_t size)
{
	char line[512], point[256], fstype[64];
	const char *sep;
	int found = 0;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (sscanf(line, "%*d %*d %*s %*s %255s", point) == 1 &&
		    !strcmp(point, MNT_DIR) && sep &&
		    sscanf(sep + 3, "%63s", fstype) == 1) {
			snprintf(type, size, "%s", fstype);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* Whether mountinfo has a mount on MNT_DIR: 1, 0, or -errno. */
static int mounted(void)
{
	char type[64];

	return mounted_type(type, sizeof(type));
}

/* mount of a fresh tmpfs on MNT_DIR, in the test's own mount namespace. */
static int mount_action(void *arg)
{
	struct task_state *st = arg;

	return mount("failnth", MNT_DIR, "tmpfs", 0, st->mnt_data) ? -errno : 0;
}

/*
 * A success: a tmpfs in mountinfo, where a file can be written and read.
 * A failure: no mount, the mount point is still the base's directory.
 */
static bool mount_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	struct statfs sfs;
	struct stat sb;
	int m = mounted(), err;

	if (m < 0 || stat(MNT_DIR, &sb) || statfs(MNT_DIR, &sfs)) {
		snprintf(why, size, "looking at %s: %s", MNT_DIR,
			 strerror(m < 0 ? -m : errno));
		return false;
	}
	if (ret < 0) {
		if (m || sb.st_dev != st->mnt_dev) {
			snprintf(why, size, "mount failed, yet %s is mounted",
				 MNT_DIR);
			return false;
		}
		return true;
	}
	if (!m || sb.st_dev == st->mnt_dev || sfs.f_type != st->mnt_magic) {
		snprintf(why, size, "mount succeeded, but no new %#lx on %s",
			 st->mnt_magic, MNT_DIR);
		return false;
	}
	if (st->mnt_probe) {
		char path[256];

		snprintf(path, sizeof(path), "%s/%s", MNT_DIR, st->mnt_probe);
		err = access(path, F_OK) ? -errno : 0;
	} else {
		err = dir_usable(MNT_DIR);
	}
	if (!err && st->mnt_quota) {
		err = quota_on(MNT_DIR);
		if (err) {
			snprintf(why, size,
				 "user quota off after mounting with %s: %s",
				 st->mnt_data, strerror(-err));
			return false;
		}
	}
	if (err) {
		snprintf(why, size, "the new filesystem is not usable: %s%s%s",
			 st->mnt_probe ?: "", st->mnt_probe ? ": " : "",
			 strerror(-err));
		return false;
	}
	return true;
}

/* A devpts instance of its own (newinstance): its superblock, ptmx. */
static int devpts_action(void *arg)
{
	return mount("failnth", MNT_DIR, "devpts", 0,
		     "newinstance,ptmxmode=0600,mode=0600") ?
		       -errno :
		       0;
}

/*
 * The mqueue filesystem of this IPC namespace: its fs_context, the mount
 * of the superblock the namespace made when it was created
 * (mq_init_ns()).
 */
static int mqueue_mount_action(void *arg)
{
	return mount("failnth", MNT_DIR, "mqueue", 0, NULL) ? -errno : 0;
}

/* A fresh FUSE device fd for the point's mount, unarmed. */
static void fuse_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;

	st->fuse_fd = open(FUSE_DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, st->fuse_fd)
	{
		TH_LOG("opening %s: %s", FUSE_DEV, strerror(errno));
	}
}

/*
 * mount of a FUSE filesystem served by st->fuse_fd: the connection, its
 * device and hash, the superblock and its bdi, the root inode, the INIT
 * request (sent, not answered: nothing here serves it).
 */
static int fuse_action(void *arg)
{
	struct task_state *st = arg;
	char opts[128];

	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0", st->fuse_fd);
	return mount("failnth", MNT_DIR, "fuse", 0, opts) ? -errno : 0;
}

/*
 * A success: a fuse mount on MNT_DIR. A failure: none. Only mountinfo is
 * asked: any call on the mount itself would wait for the INIT reply that
 * no daemon sends.
 */
static bool fuse_check(void *arg, int ret, char *why, size_t size)
{
	char type[64] = "";
	int m = mounted_type(type, sizeof(type));

	if (m < 0) {
		snprintf(why, size, "reading mountinfo: %s", strerror(-m));
		return false;
	}
	if (ret < 0 && m) {
		snprintf(why, size, "mount failed, yet %s is mounted (%s)",
			 MNT_DIR, type);
		return false;
	}
	if (ret >= 0 && (!m || strcmp(type, "fuse"))) {
		snprintf(why, size, "mount succeeded, but %s has %s", MNT_DIR,
			 m ? type : "no mount");
		return false;
	}
	return true;
}

/* Unmounts a success and closes the connection's fd either way. */
static void fuse_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct task_state *st = arg;

	if (ret >= 0)
		EXPECT_EQ(0, umount2(MNT_DIR, 0))
		{
			TH_LOG("unmounting %s: %s", MNT_DIR, strerror(errno));
		}
	if (st->fuse_fd >= 0)
		close(st->fuse_fd);
	st->fuse_fd = -1;
}

static void mount_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	if (ret < 0)
		return;
	ASSERT_EQ(0, umount2(MNT_DIR, 0))
	{
		TH_LOG("unmounting %s: %s", MNT_DIR, strerror(errno));
	}
}

/*
 * The same mount through the new mount API: fsopen(), fsconfig() of an
 * option and of the superblock's creation, fsmount() and move_mount(),
 * the path systemd and util-linux's mount take (alloc_fs_context() and its
 * log, the fs_context's fd, a detached mount in an anonymous namespace,
 * the mountpoint). Whatever step fails, the fds are closed: a detached
 * mount goes with its fd, and nothing may be left on MNT_DIR.
 */
static int fsmount_action(void *arg)
{
	int fsfd, mfd = -1, ret = 0;

	fsfd = fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (fsfd < 0)
		return -errno;
	if (fsconfig(fsfd, FSCONFIG_SET_STRING, "size", "1m", 0) ||
	    fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		ret = -errno;
	if (!ret) {
		mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, 0);
		if (mfd < 0)
			ret = -errno;
	}
	if (!ret &&
	    move_mount(mfd, "", AT_FDCWD, MNT_DIR, MOVE_MOUNT_F_EMPTY_PATH))
		ret = -errno;
	if (mfd >= 0)
		close(mfd);
	close(fsfd);
	return ret;
}

/*
 * The mount tree scenarios, on the base tmpfs: a source tree MT_SRC (a
 * tmpfs holding the file MT_MARK, with a tmpfs on each of its directories
 * "a" and "b"), and a shared tmpfs MT_P1 with a directory MT_SUB, whose
 * peer MT_P2 (a bind mount of it) and slave MT_SL (another, made a slave)
 * receive a copy of whatever is mounted on its MT_SUB (fs/pnode.c:
 * propagate_mnt(), linux 6.12). A success must show the new mounts in
 * every place, a failure in none.
 */
#define MT_SRC MNT_BASE "/mt-src"
#define MT_P1 MNT_BASE "/mt-p1"
#define MT_P2 MNT_BASE "/mt-p2"
#define MT_SL MNT_BASE "/mt-slave"
#define MT_MOVE MNT_BASE "/mt-move"
#define MT_MARK "mark"
#define MT_SUB "/sub"
/* The new root's directory that pivot_root() puts the old root on. */
#define MT_OLD "old"
#define MT_INFO_SIZE (64 * 1024)

/* The places a mount on MT_P1's MT_SUB propagates to, MT_P1's first. */
static const char *const mt_peers[] = {
	MT_P1 MT_SUB,
	MT_P2 MT_SUB,
	MT_SL MT_SUB,
};

/* The mounts of MT_SRC's tree, relative to its root. */
static const char *const mt_tree_dirs[] = { "", "/a", "/b" };

/* /proc/self/mountinfo, as mt_read() last read it. */
static char mt_info[MT_INFO_SIZE];

/*
 * Reads /proc/self/mountinfo into mt_info: 0 or -errno. No stdio: the
 * checks of a failed call must not grow the heap.
 */
static int mt_read(void)
{
	ssize_t len =
		read_file("/proc/self/mountinfo", mt_info, sizeof(mt_info));

	if (len < 0)
		return len;
	return len == sizeof(mt_info) - 1 ? -EFBIG : 0;
}

/* What mountinfo says of one mount point: the top mount's, and how many. */
struct mt_mount {
	int count;
	bool ro;
	bool shared;
	bool slave;
	dev_t dev;
};

/* What mt_info says of the mounts on @point, in @m. */
static void mt_find(const char *point, struct mt_mount *m)
{
	const char *line, *next;

	memset(m, 0, sizeof(*m));
	for (line = mt_info; *line; line = next) {
		char mp[256], opts[128], rest[512], *tok, *save;
		unsigned int maj, min;
		int off = 0;

		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		if (sscanf(line, "%*d %*d %u:%u %*s %255s %127s %n", &maj, &min,
			   mp, opts, &off) != 4 ||
		    !off || strcmp(mp, point))
			continue;
		m->count++;
		m->dev = makedev(maj, min);
		m->ro = !strcmp(opts, "ro") || !strncmp(opts, "ro,", 3);
		m->shared = false;
		m->slave = false;
		snprintf(rest, sizeof(rest), "%.*s", (int)(next - line - off),
			 line + off);
		/* The optional fields, up to the separator "-". */
		for (tok = strtok_r(rest, "\n ", &save);
		     tok && strcmp(tok, "-");
		     tok = strtok_r(NULL, "\n ", &save)) {
			if (!strncmp(tok, "shared:", 7))
				m->shared = true;
			if (!strncmp(tok, "master:", 7))
				m->slave = true;
		}
	}
}

/*
 * The lines of mt_info (read) whose mount point is MNT_BASE or under it,
 * in @buf: what a point must leave as the setup made it.
 */
static void mt_snapshot(char *buf, size_t size)
{
	const char *line, *next;
	size_t len = 0;

	buf[0] = '\0';
	for (line = mt_info; *line; line = next) {
		char mp[256];

		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		if (sscanf(line, "%*d %*d %*s %*s %255s", mp) != 1 ||
		    strncmp(mp, MNT_BASE, strlen(MNT_BASE)) ||
		    (mp[strlen(MNT_BASE)] && mp[strlen(MNT_BASE)] != '/'))
			continue;
		if (len + (next - line) < size) {
			memcpy(buf + len, line, next - line);
			len += next - line;
			buf[len] = '\0';
		}
	}
}

/* The device of @path, or 0. */
static dev_t mt_dev(const char *path)
{
	struct stat sb;

	return stat(path, &sb) ? 0 : sb.st_dev;
}

/*
 * Whether the copy of MT_SRC's tree at @root is there (@whole: its top,
 * and with @rec the mounts on "a" and "b" too, each once, each of MT_SRC's
 * superblocks, the top showing MT_MARK) or not at all (no mount on any of
 * the three); mt_info read. @what says what the call did, in @why.
 */
static bool mt_tree_is(struct task_state *st, const char *root, bool whole,
		       bool rec, const char *what, char *why, size_t size)
{
	char path[256], mark[300];
	struct mt_mount m;
	int i;

	for (i = 0; i < ARRAY_SIZE(mt_tree_dirs); i++) {
		int want = whole && (rec || !i);

		snprintf(path, sizeof(path), "%s%s", root, mt_tree_dirs[i]);
		mt_find(path, &m);
		if (m.count != want) {
			snprintf(why, size, "%s, yet %s has %d mounts, not %d",
				 what, path, m.count, want);
			return false;
		}
		if (want && (m.dev != st->mt_src_dev[i] ||
			     mt_dev(path) != st->mt_src_dev[i])) {
			snprintf(why, size,
				 "%s, yet %s is device %u:%u, not %s%s's", what,
				 path, major(m.dev), minor(m.dev), MT_SRC,
				 mt_tree_dirs[i]);
			return false;
		}
	}
	snprintf(mark, sizeof(mark), "%s/" MT_MARK, root);
	if (whole && access(mark, F_OK)) {
		snprintf(why, size, "%s, yet %s is not there: %s", what, mark,
			 strerror(errno));
		return false;
	}
	return true;
}

/* mountinfo read into mt_info, or why not in @why. */
static bool mt_reread(char *why, size_t size)
{
	int err = mt_read();

	if (err)
		snprintf(why, size, "reading /proc/self/mountinfo: %s",
			 strerror(-err));
	return !err;
}

/* What a check says the call did. */
static const char *mt_did(int ret)
{
	return ret >= 0 ? "the call succeeded" : "the call failed";
}

/* Unmounts everything on @path, lazily, each submount with it. */
static void mt_umount_all(const char *path)
{
	int i;

	for (i = 0; i < 8 && !umount2(path, MNT_DETACH); i++)
		;
}

#define MT_CHANGED_FMT "mounts under %s changed: was \"%.*s\", now \"%.*s\""

/* After each point: the mounts under MNT_BASE are the setup's. */
static bool mt_settled(void *arg, char *why, size_t size)
{
	struct task_state *st = arg;
	static char now[sizeof(st->mt_base)];
	const char *a = st->mt_base, *b = now;

	if (!mt_reread(why, size))
		return false;
	mt_snapshot(now, sizeof(now));
	while (*a && *a == *b)
		a++, b++;
	if (!*a && !*b)
		return true;
	while (a > st->mt_base && a[-1] != '\n')
		a--;
	while (b > now && b[-1] != '\n')
		b--;
	snprintf(why, size, MT_CHANGED_FMT, MNT_BASE,
		 *a ? (int)strcspn(a, "\n") : 7, *a ? a : "nothing",
		 *b ? (int)strcspn(b, "\n") : 7, *b ? b : "nothing");
	return false;
}

/*
 * mount(MS_BIND) of MT_SRC's top on MNT_DIR: clone_mnt() of that one
 * mount (fs/namespace.c:__do_loopback(), linux 6.12); its submounts stay
 * behind.
 */
static int bind_action(void *arg)
{
	return mount(MT_SRC, MNT_DIR, NULL, MS_BIND, NULL) ? -errno : 0;
}

/* mount(MS_BIND | MS_REC): copy_tree() of all three. */
static int rbind_action(void *arg)
{
	return mount(MT_SRC, MNT_DIR, NULL, MS_BIND | MS_REC, NULL) ? -errno :
								      0;
}

static bool bind_check(void *arg, int ret, char *why, size_t size)
{
	return mt_reread(why, size) && mt_tree_is(arg, MNT_DIR, ret >= 0, false,
						  mt_did(ret), why, size);
}

static bool rbind_check(void *arg, int ret, char *why, size_t size)
{
	return mt_reread(why, size) &&
	       mt_tree_is(arg, MNT_DIR, ret >= 0, true, mt_did(ret), why, size);
}

/* Takes whatever a success left on MNT_DIR away. */
static void mt_dir_cleanup(struct __test_metadata *_metadata, void *arg,
			   int ret)
{
	mt_umount_all(MNT_DIR);
}

/*
 * open_tree(OPEN_TREE_CLONE | AT_RECURSIVE) of MT_SRC, a detached copy of
 * its tree in an anonymous mount namespace (fs/namespace.c:
 * open_detached_copy()), then move_mount() of it onto MNT_DIR. Whatever
 * step fails, the fd is closed: a detached tree goes with it.
 */
static int open_tree_action(void *arg)
{
	int fd, ret = 0;

	fd = open_tree(AT_FDCWD, MT_SRC,
		       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (fd < 0)
		return -errno;
	if (move_mount(fd, "", AT_FDCWD, MNT_DIR, MOVE_MOUNT_F_EMPTY_PATH))
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * Whether each mount of MT_SRC's tree is (@set) or is not both shared and
 * read-only; mt_info read.
 */
static bool mt_src_flags(bool set, const char *what, char *why, size_t size)
{
	char path[256];
	struct mt_mount m;
	int i;

	for (i = 0; i < ARRAY_SIZE(mt_tree_dirs); i++) {
		snprintf(path, sizeof(path), MT_SRC "%s", mt_tree_dirs[i]);
		mt_find(path, &m);
		if (m.count == 1 && m.shared == set && m.ro == set)
			continue;
		snprintf(why, size, "%s, yet %s has %d mounts, %s, %s", what,
			 path, m.count, m.shared ? "shared" : "private",
			 m.ro ? "ro" : "rw");
		return false;
	}
	return true;
}

/* Makes MT_SRC's tree private and read-write again, as the setup made it. */
static void mt_src_cleanup(struct __test_metadata *_metadata, void *arg,
			   int ret)
{
	struct mount_attr attr = {
		.attr_clr = MOUNT_ATTR_RDONLY,
		.propagation = MS_PRIVATE,
	};

	ASSERT_EQ(0, mount_setattr(AT_FDCWD, MT_SRC, AT_RECURSIVE, &attr,
				   sizeof(attr)))
	{
		TH_LOG("making %s private and rw again: %s", MT_SRC,
		       strerror(errno));
	}
}

/*
 * mount_setattr(AT_RECURSIVE) of MT_SRC's tree, read-only and shared: the
 * peer group ids first (invent_group_ids()), then every mount's flags
 * (mount_setattr_prepare() and _commit(), fs/namespace.c:4792-4794,
 * linux 6.12), all or none.
 */
static int setattr_action(void *arg)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_RDONLY,
		.propagation = MS_SHARED,
	};

	return mount_setattr(AT_FDCWD, MT_SRC, AT_RECURSIVE, &attr,
			     sizeof(attr)) ?
		       -errno :
		       0;
}

static bool setattr_check(void *arg, int ret, char *why, size_t size)
{
	return mt_reread(why, size) &&
	       mt_src_flags(ret >= 0, mt_did(ret), why, size);
}

/*
 * mount(MS_BIND | MS_REC) of MT_SRC's tree on MT_P1's MT_SUB: the copy,
 * then a copy of it for the peer and one for the slave
 * (propagate_one(), fs/pnode.c:224, linux 6.12).
 */
static int bind_shared_action(void *arg)
{
	return mount(MT_SRC, MT_P1 MT_SUB, NULL, MS_BIND | MS_REC, NULL) ?
		       -errno :
		       0;
}

static bool bind_shared_check(void *arg, int ret, char *why, size_t size)
{
	int i;

	if (!mt_reread(why, size))
		return false;
	for (i = 0; i < ARRAY_SIZE(mt_peers); i++)
		if (!mt_tree_is(arg, mt_peers[i], ret >= 0, true, mt_did(ret),
				why, size))
			return false;
	return true;
}

/* Takes whatever is on MT_SUB of MT_P1, its peer and its slave away. */
static void mt_peers_cleanup(struct __test_metadata *_metadata, void *arg,
			     int ret)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(mt_peers); i++)
		mt_umount_all(mt_peers[i]);
	mt_umount_all(MT_MOVE);
}

#define MT_PEERS_FMT "%s, yet %s has %d mounts (device %u:%u, %u:%u expected)"

/*
 * Whether MT_SUB of MT_P1, its peer and its slave each show (@there) the
 * tmpfs prepared, device st->mt_new_dev, with MT_MARK, or no mount at all;
 * mt_info read.
 */
static bool mt_peers_are(struct task_state *st, bool there, const char *what,
			 char *why, size_t size)
{
	char mark[300];
	struct mt_mount m;
	int i;

	for (i = 0; i < ARRAY_SIZE(mt_peers); i++) {
		mt_find(mt_peers[i], &m);
		snprintf(mark, sizeof(mark), "%s/" MT_MARK, mt_peers[i]);
		if (m.count == there &&
		    (!there || (m.dev == st->mt_new_dev &&
				mt_dev(mt_peers[i]) == st->mt_new_dev &&
				!access(mark, F_OK))))
			continue;
		snprintf(why, size, MT_PEERS_FMT, what, mt_peers[i], m.count,
			 major(m.dev), minor(m.dev), major(st->mt_new_dev),
			 minor(st->mt_new_dev));
		return false;
	}
	return true;
}

/* A fresh tmpfs with MT_MARK on @path, unarmed; its device in mt_new_dev. */
static void mt_new_tmpfs(struct __test_metadata *_metadata,
			 struct task_state *st, const char *path)
{
	char mark[300];
	int fd;

	ASSERT_EQ(0, mount("failnth", path, "tmpfs", 0, "size=64k"))
	{
		TH_LOG("mounting a tmpfs on %s: %s", path, strerror(errno));
	}
	snprintf(mark, sizeof(mark), "%s/" MT_MARK, path);
	fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	close(fd);
	st->mt_new_dev = mt_dev(path);
	ASSERT_NE(0, st->mt_new_dev);
}

/*
 * A tmpfs on MT_P1's MT_SUB, which its peer and slave receive, unarmed,
 * for the umount.
 */
static void umount_shared_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;
	char why[256] = "";
	bool ok;

	mt_new_tmpfs(_metadata, st, MT_P1 MT_SUB);
	ok = mt_reread(why, sizeof(why)) &&
	     mt_peers_are(st, true, "mounted (unarmed)", why, sizeof(why));
	ASSERT_TRUE(ok)
	{
		TH_LOG("%s", why);
	}
}

/*
 * umount2() of MT_P1's MT_SUB: umount_tree() with UMOUNT_PROPAGATE takes
 * the copies on the peer and the slave with it (fs/pnode.c:
 * propagate_umount(), linux 6.12).
 */
static int umount_shared_action(void *arg)
{
	return umount2(MT_P1 MT_SUB, 0) ? -errno : 0;
}

static bool umount_shared_check(void *arg, int ret, char *why, size_t size)
{
	return mt_reread(why, size) &&
	       mt_peers_are(arg, ret < 0, mt_did(ret), why, size);
}

/* A tmpfs on MT_MOVE, unarmed, for MS_MOVE to move. */
static void move_prepare(struct __test_metadata *_metadata, void *arg)
{
	mt_new_tmpfs(_metadata, arg, MT_MOVE);
}

/*
 * mount(MS_MOVE) of the tmpfs on MT_MOVE to MT_P1's MT_SUB: a move into a
 * shared mount, which attach_recursive_mnt() propagates to the peer and
 * the slave (fs/namespace.c:2542-2546, linux 6.12).
 */
static int move_action(void *arg)
{
	return mount(MT_MOVE, MT_P1 MT_SUB, NULL, MS_MOVE, NULL) ? -errno : 0;
}

/*
 * A success: the tmpfs is on MT_SUB of MT_P1, its peer and its slave, and
 * no longer on MT_MOVE. A failure: on MT_MOVE alone.
 */
static bool move_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	struct mt_mount m;

	if (!mt_reread(why, size) ||
	    !mt_peers_are(st, ret >= 0, mt_did(ret), why, size))
		return false;
	mt_find(MT_MOVE, &m);
	if (ret >= 0 ? !m.count : m.count == 1 && m.dev == st->mt_new_dev)
		return true;
	snprintf(why, size, "%s, yet %s has %d mounts", mt_did(ret), MT_MOVE,
		 m.count);
	return false;
}

/*
 * The idmapped mount's user namespace maps MT_IDMAP_EXTENTS extents of 10
 * ids, id i * 20 to MT_IDMAP_BASE + i * 20: more than the 5 a map holds in
 * place (UID_GID_MAP_MAX_BASE_EXTENTS), so that alloc_mnt_idmap() copies
 * both maps' extent arrays, forward and reverse (fs/mnt_idmapping.c:
 * copy_mnt_idmap(), lines 248-260, linux 6.12). MT_FAR, in MT_SRC, is
 * owned by an id of the last extent.
 */
#define MT_IDMAP_EXTENTS 7
#define MT_IDMAP_BASE 100000
#define MT_FAR "far"
#define MT_FAR_ID ((MT_IDMAP_EXTENTS - 1) * 20 + 5)

/* A detached copy of MT_SRC's top, unarmed, for the idmapping. */
static void idmap_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;

	st->mt_tree = open_tree(AT_FDCWD, MT_SRC,
				OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	ASSERT_LE(0, st->mt_tree)
	{
		TH_LOG("open_tree of %s: %s", MT_SRC, strerror(errno));
	}
}

/*
 * mount_setattr(MOUNT_ATTR_IDMAP) of the detached copy: alloc_mnt_idmap()
 * and its copies of the maps (fs/mnt_idmapping.c:286-303, linux 6.12).
 */
static int idmap_action(void *arg)
{
	struct task_state *st = arg;
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_IDMAP,
		.userns_fd = st->mt_userns,
	};

	return mount_setattr(st->mt_tree, "", AT_EMPTY_PATH, &attr,
			     sizeof(attr)) ?
		       -errno :
		       0;
}

/*
 * A success: through the copy, MT_MARK (root's) is owned by MT_IDMAP_BASE
 * and MT_FAR by its id mapped through the last extent, uid and gid. A
 * failure: both as they are on the tmpfs.
 */
static bool idmap_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	static const char *const name[] = { MT_MARK, MT_FAR };
	const unsigned int id[] = { 0, MT_FAR_ID };
	struct stat sb;
	int i;

	for (i = 0; i < ARRAY_SIZE(name); i++) {
		unsigned int want = id[i] + (ret >= 0 ? MT_IDMAP_BASE : 0);

		if (fstatat(st->mt_tree, name[i], &sb, 0)) {
			snprintf(why, size, "stat of %s in the copy: %s",
				 name[i], strerror(errno));
			return false;
		}
		if (sb.st_uid == want && sb.st_gid == want)
			continue;
		snprintf(why, size, "%s, yet %s is owned by %u:%u, not %u",
			 mt_did(ret), name[i], sb.st_uid, sb.st_gid, want);
		return false;
	}
	return true;
}

/* Closes the detached copy, which goes with its fd. */
static void idmap_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct task_state *st = arg;

	if (st->mt_tree >= 0)
		close(st->mt_tree);
	st->mt_tree = -1;
}

/*
 * statmount() (linux 6.8), not in this libc's headers: its number, request
 * and reply as include/uapi/linux/mount.h:155-209 (linux 6.12) has them,
 * and statx()'s unique mount id (include/uapi/linux/stat.h, linux 6.8).
 */
#ifndef __NR_statmount
#define __NR_statmount 457
#endif
#define MT_STATX_MNT_ID_UNIQUE 0x4000U
#define MT_SM_SB_BASIC 0x01U
#define MT_SM_MNT_BASIC 0x02U
#define MT_SM_MNT_ROOT 0x08U
#define MT_SM_MNT_POINT 0x10U
#define MT_SM_FS_TYPE 0x20U
#define MT_SM_MNT_OPTS 0x80U
#define MT_SM_MASK                                                             \
	(MT_SM_SB_BASIC | MT_SM_MNT_BASIC | MT_SM_MNT_ROOT | MT_SM_MNT_POINT | \
	 MT_SM_FS_TYPE | MT_SM_MNT_OPTS)

struct mt_mnt_id_req {
	__u32 size;
	__u32 mnt_ns_fd;
	__u64 mnt_id;
	__u64 param;
	__u64 mnt_ns_id;
};

struct mt_statmount {
	__u32 size;
	__u32 mnt_opts;
	__u64 mask;
	__u32 sb_dev_major;
	__u32 sb_dev_minor;
	__u64 sb_magic;
	__u32 sb_flags;
	__u32 fs_type;
	__u64 mnt_id;
	__u64 mnt_parent_id;
	__u32 mnt_id_old;
	__u32 mnt_parent_id_old;
	__u64 mnt_attr;
	__u64 mnt_propagation;
	__u64 mnt_peer_group;
	__u64 mnt_master;
	__u64 propagate_from;
	__u32 mnt_root;
	__u32 mnt_point;
	__u64 mnt_ns_id;
	__u64 spare2[49];
	char str[];
};

/* The reply, cleared before each point; the ids of MT_SRC and MT_SRC/a. */
static union {
	struct mt_statmount sm;
	char buf[4096];
} mt_sm;
static __u64 mt_sm_id[2];

/* The unique mount id of @path, or 0. */
static __u64 mt_unique_id(const char *path)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, 0, MT_STATX_MNT_ID_UNIQUE, &stx) ||
	    !(stx.stx_mask & MT_STATX_MNT_ID_UNIQUE))
		return 0;
	return stx.stx_mnt_id;
}

static void statmount_prepare(struct __test_metadata *_metadata, void *arg)
{
	memset(&mt_sm, 0, sizeof(mt_sm));
}

/*
 * statmount() of MT_SRC/a's mount, with its strings: the kstatmount
 * (fs/namespace.c:5492-5494) and the buffer of its strings, 3 * PATH_MAX
 * bytes, from vmalloc() when kmalloc() cannot (fs/namespace.c:5392-5394,
 * linux 6.12).
 */
static int statmount_action(void *arg)
{
	struct mt_mnt_id_req req = {
		.size = sizeof(req),
		.mnt_id = mt_sm_id[1],
		.param = MT_SM_MASK,
	};

	return syscall(__NR_statmount, &req, &mt_sm, sizeof(mt_sm), 0) ?
		       -errno :
		       0;
}

/*
 * A success: every part asked for, each right: the mount's and its
 * parent's ids, its device, "tmpfs", its mount point and root, and the
 * size it was mounted with among its options. A failure: nothing written.
 */
static bool statmount_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	const struct mt_statmount *sm = &mt_sm.sm;
	const char *str = sm->str;

	if (ret < 0) {
		if (!sm->size && !sm->mask)
			return true;
		snprintf(why, size, "%s, yet %u bytes written, mask %#llx",
			 mt_did(ret), sm->size, (unsigned long long)sm->mask);
		return false;
	}
	if (sm->mask == MT_SM_MASK && sm->mnt_id == mt_sm_id[1] &&
	    sm->mnt_parent_id == mt_sm_id[0] &&
	    makedev(sm->sb_dev_major, sm->sb_dev_minor) == st->mt_src_dev[1] &&
	    sm->size <= sizeof(mt_sm) && !strcmp(str + sm->fs_type, "tmpfs") &&
	    !strcmp(str + sm->mnt_point, MT_SRC "/a") &&
	    !strcmp(str + sm->mnt_root, "/") &&
	    strstr(str + sm->mnt_opts, "size=64k"))
		return true;
	snprintf(why, size,
		 "%s, yet the reply is mask %#llx, id %llu (%llu), size %u",
		 mt_did(ret), (unsigned long long)sm->mask,
		 (unsigned long long)sm->mnt_id,
		 (unsigned long long)mt_sm_id[1], sm->size);
	return false;
}

/*
 * pivot_root(), in a child in a mount namespace of its own: a tmpfs on
 * MNT_DIR is the new root, the old one goes on its MT_OLD. The devices of
 * the old root and of the new, for the check.
 */
static int pivot_prepare(void *arg)
{
	struct task_state *st = arg;

	if (unshare(CLONE_NEWNS) ||
	    mount("failnth", MNT_DIR, "tmpfs", 0, "size=64k") ||
	    mkdir(MNT_DIR "/" MT_OLD, 0700))
		return -errno;
	st->mt_src_dev[0] = mt_dev("/");
	st->mt_new_dev = mt_dev(MNT_DIR);
	return st->mt_src_dev[0] && st->mt_new_dev ? 0 : -EIO;
}

static int pivot_action(void *arg)
{
	return syscall(SYS_pivot_root, MNT_DIR, MNT_DIR "/" MT_OLD) ? -errno :
								      0;
}

/*
 * A success: "/" is the tmpfs, the old root on its MT_OLD. A failure: "/"
 * is the old root, the tmpfs still on MNT_DIR.
 */
static bool pivot_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	dev_t root = mt_dev("/");
	dev_t other = mt_dev(ret >= 0 ? "/" MT_OLD : MNT_DIR);
	dev_t want_root = ret >= 0 ? st->mt_new_dev : st->mt_src_dev[0];
	dev_t want_other = ret >= 0 ? st->mt_src_dev[0] : st->mt_new_dev;

	if (root == want_root && other == want_other)
		return true;
	snprintf(why, size, "%s, yet / is %u:%u and %s %u:%u", mt_did(ret),
		 major(root), minor(root), ret >= 0 ? "/" MT_OLD : MNT_DIR,
		 major(other), minor(other));
	return false;
}

/*
 * The overlay scenarios: a lower, an upper and a work directory on the
 * base tmpfs, and a file of the lower layer (two pages and a bit, so that
 * its copy-up copies more than one page) with a user xattr.
 */
#define OVL_LOWER MNT_BASE "/lower"
#define OVL_UPPER MNT_BASE "/upper"
#define OVL_WORK MNT_BASE "/work"
#define OVL_FILE "file"
#define OVL_FILE_LEN 9000
/* A user xattr of the lower file, which its copy-up copies. */
#define OVL_XATTR "user.failnth"
#define OVL_XATTR_VALUE "lower"
/*
 * An xattr in overlayfs's own namespace, set through the overlay, and the
 * escaped name it has in the upper layer (fs/overlayfs/xattrs.c:
 * ovl_xattr_escape_name()).
 */
#define OVL_TRUSTED "trusted.overlay.failnth"
#define OVL_TRUSTED_ESCAPED "trusted.overlay.overlay.failnth"
/* A lower directory, with a file, that the rename scenario renames. */
#define OVL_DIR "dir"
#define OVL_MOVED "moved"
#define OVL_INNER "inner"
/* A new directory, into which the impure scenario moves the lower file. */
#define OVL_SUB "sub"
#define OVL_OPTS \
	"lowerdir=" OVL_LOWER ",upperdir=" OVL_UPPER ",workdir=" OVL_WORK

/* The options of an overlay that can decode its file handles. */
#define OVL_OPTS_EXPORT OVL_OPTS ",index=on,nfs_export=on"

/* The lower file's bytes. */
static char ovl_data[OVL_FILE_LEN];

/*
 * Whether @path holds ovl_data, and nothing else, and the lower file's
 * xattr: 0, -EIO if it holds other bytes or another value, or -errno.
 */
static int ovl_holds_data(const char *path)
{
	static char buf[OVL_FILE_LEN + 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	ssize_t len;

	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf));
	if (len != OVL_FILE_LEN || memcmp(buf, ovl_data, len))
		err = len < 0 ? -errno : -EIO;
	len = err ? 0 : fgetxattr(fd, OVL_XATTR, buf, sizeof(buf));
	if (!err && len < 0)
		err = errno == ENODATA ? -EIO : -errno;
	else if (!err && (len != strlen(OVL_XATTR_VALUE) ||
			  memcmp(buf, OVL_XATTR_VALUE, len)))
		err = -EIO;
	close(fd);
	return err;
}

/*
 * Whether the upper and work directories are as a mount leaves them: the
 * upper one holds @upper entries (unless @upper < 0); the work one holds
 * nothing but "work", overlayfs's scratch directory, and with index=on
 * "index", both empty. A mount creates "work" before anything else can
 * fail (fs/overlayfs/super.c:657, linux 6.12, ovl_make_workdir()), and
 * leaves it when the mount fails after; the next mount removes it with
 * whatever it holds (super.c:285-309, "retry"). "index" is kept for good
 * (super.c:847), and holds an entry only for an indexed copy-up, which no
 * scenario here makes. A temporary file in "work" would be one a failure
 * did not clean up.
 */
static bool ovl_layers_are(int upper, const char *when, char *why, size_t size)
{
	char names[256], path[256];
	struct dirent *de;
	DIR *d;
	int nr;

	nr = upper < 0 ? upper :
			 dir_names(OVL_UPPER, NULL, names, sizeof(names));
	if (nr != upper) {
		snprintf(why, size, "%s: %s has %d entries (%s), expected %d",
			 when, OVL_UPPER, nr, nr < 0 ? strerror(-nr) : names,
			 upper);
		return false;
	}
	d = opendir(OVL_WORK);
	if (!d) {
		snprintf(why, size, "%s: %s: %s", when, OVL_WORK,
			 strerror(errno));
		return false;
	}
	nr = 0;
	while (!nr && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%.32s", OVL_WORK, de->d_name);
		if (strcmp(de->d_name, "work") && strcmp(de->d_name, "index"))
			nr = -EEXIST;
		else
			nr = dir_names(path, NULL, names, sizeof(names));
	}
	closedir(d);
	if (nr == -EEXIST)
		snprintf(why, size, "%s: %s is not overlayfs's", when, path);
	else if (nr)
		snprintf(why, size, "%s: %s has %d entries (%s)", when, path,
			 nr, nr < 0 ? strerror(-nr) : names);
	return !nr;
}

/*
 * Before each overlay point: no "work" left by the point before, so that
 * each mount takes the same path (ovl_workdir_create() cleans up an old
 * one first), and a new empty upper layer, without the xattrs a mount or
 * copy-up sets on its root (trusted.overlay.uuid, .impure).
 */
static void ovl_reset(struct __test_metadata *_metadata)
{
	char why[256] = "";

	ASSERT_EQ(0, rm_tree(OVL_WORK "/work"));
	ASSERT_EQ(0, rm_tree(OVL_WORK "/index"));
	ASSERT_EQ(0, rm_tree(OVL_UPPER));
	ASSERT_EQ(0, mkdir(OVL_UPPER, 0755));
	ASSERT_TRUE(ovl_layers_are(0, "before the point", why, sizeof(why)))
	{
		TH_LOG("%s", why);
	}
}

static void ovl_mount_prepare(struct __test_metadata *_metadata, void *arg)
{
	ovl_reset(_metadata);
}

/*
 * mount of an overlay of the lower directory with the upper and work ones:
 * the fs_context and its parsed layers (fs/overlayfs/params.c), the
 * superblock, its layers and their private mounts, the work directory and
 * the probes of what the upper filesystem supports (a tmpfile, a
 * RENAME_WHITEOUT, a trusted.overlay xattr), the root's overlay inode and
 * entry.
 */
static int ovl_mount_action(void *arg)
{
	return mount("overlay", MNT_DIR, "overlay", 0, OVL_OPTS) ? -errno : 0;
}

/*
 * A success: an overlay in mountinfo that shows the lower file whole; a
 * file written through it lands in the upper layer. A mount that could not
 * make its work directory is read-only: fs/overlayfs/super.c:
 * ovl_workdir_create() returns NULL with "mounting read-only"
 * (super.c:359), and ovl_fill_super() sets SB_RDONLY (super.c:1393). A
 * failure: no mount, and the layers as ovl_layers_are() allows.
 */
static bool ovl_mount_check(void *arg, int ret, char *why, size_t size)
{
	char type[64] = "";
	struct statvfs sv;
	int m = mounted_type(type, sizeof(type)), err;

	if (m < 0) {
		snprintf(why, size, "reading mountinfo: %s", strerror(-m));
		return false;
	}
	if (ret < 0) {
		if (m) {
			snprintf(why, size, "mount failed, yet %s has %s",
				 MNT_DIR, type);
			return false;
		}
		return ovl_layers_are(0, "after a failed mount", why, size);
	}
	if (!m || strcmp(type, "overlay")) {
		snprintf(why, size, "mount succeeded, but %s has %s", MNT_DIR,
			 m ? type : "no mount");
		return false;
	}
	err = ovl_holds_data(MNT_DIR "/" OVL_FILE);
	if (err) {
		snprintf(why, size, "the lower file through the overlay: %s",
			 strerror(-err));
		return false;
	}
	if (statvfs(MNT_DIR, &sv)) {
		snprintf(why, size, "statvfs of the overlay: %s",
			 strerror(errno));
		return false;
	}
	if (sv.f_flag & ST_RDONLY)
		return true;
	err = dir_usable(MNT_DIR);
	if (err) {
		snprintf(why, size, "writing a file through the overlay: %s",
			 strerror(-err));
		return false;
	}
	return ovl_layers_are(0, "after a file came and went", why, size);
}

/* What fills the buffers a failed call must not write. */
#define OVL_FILL 0xa5

/* Whether the @size bytes at @buf are all OVL_FILL: nothing wrote them. */
static bool ovl_unwritten(const void *buf, size_t size)
{
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < size && p[i] == OVL_FILL; i++)
		;
	return i == size;
}

/*
 * An overlay mounted, unarmed, for a call on it; the buffers its call
 * fills, filled with OVL_FILL.
 */
static void ovl_mounted_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;

	memset(&st->ovl_stat, OVL_FILL, sizeof(st->ovl_stat));
	memset(st->ovl_dents, OVL_FILL, sizeof(st->ovl_dents));
	st->ovl_impure = false;
	ovl_reset(_metadata);
	ASSERT_EQ(0, ovl_mount_action(arg))
	{
		TH_LOG("mounting the overlay (unarmed): %s", strerror(errno));
	}
}

/*
 * open() for writing of the lower file through the overlay: its copy-up
 * (fs/overlayfs/copy_up.c) into a tmpfile of the work directory, its data,
 * its xattrs (ovl_copy_xattr()) and origin file handle, then its link into
 * the upper layer.
 */
static int ovl_copy_up_action(void *arg)
{
	struct task_state *st = arg;
	int fd = open(MNT_DIR "/" OVL_FILE, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	st->ovl_fd = fd;
	return fd;
}

/*
 * After a call that copies the lower file up: the upper layer holds the
 * file (whole, the lower's bytes) after a success, and after a failure
 * what the copy-up left (@copied: the file, whole, or nothing).
 */
static bool ovl_copy_whole(bool copied, int ret, const char *call, char *why,
			   size_t size)
{
	char when[64];
	int err;

	snprintf(when, sizeof(when), "after %s%s", ret < 0 ? "a failed " : "",
		 call);
	if (!ovl_layers_are(ret < 0 ? copied : 1, when, why, size))
		return false;
	err = copied ? ovl_holds_data(OVL_UPPER "/" OVL_FILE) : 0;
	if (err) {
		snprintf(why, size, "the copied-up file: %s", strerror(-err));
		return false;
	}
	return true;
}

/*
 * A success: the fd is the action's, the upper layer has the file with the
 * lower's bytes, and a byte written to the fd lands there. A failure: no
 * fd; the upper layer has no file, or the whole copy: ovl_open() copies up
 * (fs/overlayfs/file.c:155, linux 6.12) before it opens the upper file
 * (file.c:166), whose failure does not undo the copy-up, which changes
 * nothing the overlay shows. The work directory is left empty, the lower
 * file untouched, either way.
 */
static bool ovl_copy_up_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	bool copied = !access(OVL_UPPER "/" OVL_FILE, F_OK);
	char byte[2] = "";
	int err;

	if (ret < 0 ? st->ovl_fd >= 0 : ret != st->ovl_fd) {
		snprintf(why, size, "open gave %d, yet the action has fd %d",
			 ret, st->ovl_fd);
		return false;
	}
	err = ovl_holds_data(OVL_LOWER "/" OVL_FILE);
	if (err) {
		snprintf(why, size, "the lower file: %s", strerror(-err));
		return false;
	}
	if (!ovl_copy_whole(copied, ret, "open", why, size))
		return false;
	if (ret < 0)
		return true;
	if (pwrite(st->ovl_fd, "x", 1, 0) != 1) {
		snprintf(why, size, "writing a byte to fd %d: %s", st->ovl_fd,
			 strerror(errno));
		return false;
	}
	if (read_file(OVL_UPPER "/" OVL_FILE, byte, 2) != 1 || byte[0] != 'x') {
		snprintf(why, size, "a byte written to fd %d: upper has \"%s\"",
			 st->ovl_fd, byte);
		return false;
	}
	return true;
}

/*
 * The file copied up, with the origin xattr that names the lower file,
 * then an overlay mounted afresh, unarmed: nothing of it is cached.
 */
static void ovl_origin_prepare(struct __test_metadata *_metadata, void *arg)
{
	int fd;

	ovl_mounted_prepare(_metadata, arg);
	fd = open(MNT_DIR "/" OVL_FILE, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd)
	{
		TH_LOG("copying up (unarmed): %s", strerror(errno));
	}
	close(fd);
	ASSERT_EQ(0, umount(MNT_DIR));
	ASSERT_EQ(0, rm_tree(OVL_WORK "/work"));
	ASSERT_EQ(0, ovl_mount_action(arg));
}

/*
 * stat() of the copied-up file through the fresh overlay: its lookup
 * (fs/overlayfs/namei.c: ovl_lookup()) reads the upper file's origin
 * xattr (ovl_get_fh()), finds the lower file it names
 * (ovl_check_origin_fh()), and makes the overlay inode and entry.
 */
static int ovl_origin_action(void *arg)
{
	struct task_state *st = arg;

	return stat(MNT_DIR "/" OVL_FILE, &st->ovl_stat) ? -errno : 0;
}

/*
 * A stat() through the overlay. A success: the size and inode number of
 * the lower file @lower, which ovl_getattr() reports for a lower file and
 * for a copied-up file whose origin it found (fs/overlayfs/inode.c:222,
 * linux 6.12). A failure: no byte of the stat buffer written (fs/stat.c:
 * 510-512 copies it out only after a success). Either way the upper layer
 * holds the @entries entries the preparation left.
 */
static bool ovl_stat_is(struct task_state *st, int entries, const char *lower,
			int ret, char *why, size_t size)
{
	struct stat want;

	if (!ovl_layers_are(entries,
			    ret < 0 ? "after a failed stat" : "after stat", why,
			    size))
		return false;
	if (ret < 0 && !ovl_unwritten(&st->ovl_stat, sizeof(st->ovl_stat))) {
		snprintf(why, size, "the failed stat wrote its buffer");
		return false;
	}
	if (ret < 0)
		return true;
	if (stat(lower, &want)) {
		snprintf(why, size, "stat of the lower file: %s",
			 strerror(errno));
		return false;
	}
	if (st->ovl_stat.st_size != want.st_size ||
	    st->ovl_stat.st_ino != want.st_ino) {
		const char *fmt =
			"stat gave %lld bytes, inode %lu; the lower file has %lld, inode %lu";

		snprintf(why, size, fmt, (long long)st->ovl_stat.st_size,
			 (unsigned long)st->ovl_stat.st_ino,
			 (long long)want.st_size, (unsigned long)want.st_ino);
		return false;
	}
	return true;
}

/* The copied-up file, whose origin the upper file's xattr names. */
static bool ovl_origin_check(void *arg, int ret, char *why, size_t size)
{
	return ovl_stat_is(arg, 1, OVL_LOWER "/" OVL_FILE, ret, why, size);
}

/*
 * setxattr() of an xattr of overlayfs's own namespace on the lower file,
 * through the overlay: its name escaped (ovl_xattr_escape_name()), the
 * file copied up (fs/overlayfs/xattrs.c:56), the xattr set on the upper
 * file (xattrs.c:69).
 */
static int ovl_setxattr_action(void *arg)
{
	return setxattr(MNT_DIR "/" OVL_FILE, OVL_TRUSTED, "v", 1, 0) ? -errno :
									0;
}

/*
 * A success: the overlay shows the xattr, the upper file holds the lower
 * one's bytes and the xattr by its escaped name. A failure: the overlay
 * shows no xattr; the upper layer has no file, or the whole copy (the
 * copy-up comes first and a later failure does not undo it, as for
 * ovl_copy_up_check()). The work directory is left empty either way.
 */
static bool ovl_setxattr_check(void *arg, int ret, char *why, size_t size)
{
	bool copied = !access(OVL_UPPER "/" OVL_FILE, F_OK);
	char val[8] = "";
	ssize_t len;

	len = getxattr(MNT_DIR "/" OVL_FILE, OVL_TRUSTED, val, sizeof(val));
	if (ret < 0 ? len >= 0 || errno != ENODATA :
		      len != 1 || val[0] != 'v') {
		snprintf(why, size,
			 "setxattr %s, yet the overlay gives %zd (%s)",
			 ret < 0 ? "failed" : "succeeded", len,
			 len < 0 ? strerror(errno) : val);
		return false;
	}
	if (!ovl_copy_whole(copied, ret, "setxattr", why, size))
		return false;
	if (ret < 0)
		return true;
	len = getxattr(OVL_UPPER "/" OVL_FILE, OVL_TRUSTED_ESCAPED, val,
		       sizeof(val));
	if (len != 1 || val[0] != 'v') {
		snprintf(why, size, "the upper file's %s: %zd (%s)",
			 OVL_TRUSTED_ESCAPED, len,
			 len < 0 ? strerror(errno) : val);
		return false;
	}
	return true;
}

/* An overlay with redirect_dir=on mounted, unarmed, for the rename. */
static void ovl_rename_prepare(struct __test_metadata *_metadata, void *arg)
{
	ovl_reset(_metadata);
	ASSERT_EQ(0, mount("overlay", MNT_DIR, "overlay", 0,
			   OVL_OPTS ",redirect_dir=on"))
	{
		TH_LOG("mounting the overlay (unarmed): %s", strerror(errno));
	}
}

/*
 * rename() of the lower directory within the overlay's root: its copy-up
 * (a temporary directory in the work directory, its origin, renamed into
 * the upper layer), its redirect xattr (fs/overlayfs/dir.c:
 * ovl_set_redirect(), ovl_get_redirect()), the rename in the upper layer
 * and the whiteout that hides the lower directory's old name.
 */
static int ovl_rename_action(void *arg)
{
	return rename(MNT_DIR "/" OVL_DIR, MNT_DIR "/" OVL_MOVED) ? -errno : 0;
}

/*
 * A success: the directory is seen under its new name with its file, and
 * the old name is gone. A failure: the other way round. Either way the
 * work directory is left empty and the lower directory untouched; what
 * the upper layer holds is what the overlay shows.
 */
static bool ovl_rename_check(void *arg, int ret, char *why, size_t size)
{
	const char *there = ret < 0 ? OVL_DIR : OVL_MOVED;
	const char *gone = ret < 0 ? OVL_MOVED : OVL_DIR;
	char path[256], names[64], buf[16] = "";
	const char *when;
	int nr, err;

	snprintf(path, sizeof(path), "%s/%s", MNT_DIR, gone);
	err = access(path, F_OK) ? errno : 0;
	if (err != ENOENT) {
		snprintf(why, size, "rename %s, yet %s: %s",
			 ret < 0 ? "failed" : "succeeded", path,
			 err ? strerror(err) : "it is there");
		return false;
	}
	snprintf(path, sizeof(path), "%s/%s", MNT_DIR, there);
	nr = dir_names(path, NULL, names, sizeof(names));
	snprintf(path, sizeof(path), "%s/%s/%s", MNT_DIR, there, OVL_INNER);
	if (nr != 1 || read_file(path, buf, sizeof(buf)) < 0 ||
	    strcmp(buf, OVL_INNER)) {
		snprintf(why, size, "rename %s, but %s has %d entries (%s)",
			 ret < 0 ? "failed" : "succeeded", there, nr,
			 nr < 0 ? strerror(-nr) : names);
		return false;
	}
	snprintf(path, sizeof(path), "%s/%s/%s", OVL_LOWER, OVL_DIR, OVL_INNER);
	if (read_file(path, buf, sizeof(buf)) < 0 || strcmp(buf, OVL_INNER)) {
		snprintf(why, size, "the lower directory's file: %s", buf);
		return false;
	}
	when = ret < 0 ? "after a failed rename" : "after a rename";
	return ovl_layers_are(-1, when, why, size);
}

/*
 * The lower directory renamed (unarmed) through an overlay with
 * redirect_dir=on, then that overlay mounted afresh: nothing of it cached.
 */
static void ovl_redirect_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;

	memset(&st->ovl_stat, OVL_FILL, sizeof(st->ovl_stat));
	ovl_rename_prepare(_metadata, arg);
	ASSERT_EQ(0, ovl_rename_action(arg));
	ASSERT_EQ(0, umount(MNT_DIR));
	ASSERT_EQ(0, rm_tree(OVL_WORK "/work"));
	ASSERT_EQ(0, mount("overlay", MNT_DIR, "overlay", 0,
			   OVL_OPTS ",redirect_dir=on"));
}

/*
 * stat() of the file in the renamed directory: the lookup of the
 * directory's new name reads its redirect xattr (fs/overlayfs/util.c:
 * ovl_get_redirect_xattr(), namei.c: ovl_lookup()) to find the lower
 * directory, where the file is.
 */
static int ovl_redirect_action(void *arg)
{
	struct task_state *st = arg;

	return stat(MNT_DIR "/" OVL_MOVED "/" OVL_INNER, &st->ovl_stat) ?
		       -errno :
		       0;
}

/* The lower file, found through the renamed directory's redirect. */
static bool ovl_redirect_check(void *arg, int ret, char *why, size_t size)
{
	return ovl_stat_is(arg, 2, OVL_LOWER "/" OVL_DIR "/" OVL_INNER, ret,
			   why, size);
}

/*
 * A directory made through the overlay (in the upper layer alone), the
 * lower file moved into it (copied up, with its origin: the directory is
 * marked impure, fs/overlayfs/dir.c: ovl_set_impure()), then the overlay
 * mounted afresh, unarmed.
 */
static void ovl_impure_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;

	ovl_mounted_prepare(_metadata, arg);
	st->ovl_impure = true;
	ASSERT_EQ(0, mkdir(MNT_DIR "/" OVL_SUB, 0755));
	ASSERT_EQ(0, rename(MNT_DIR "/" OVL_FILE,
			    MNT_DIR "/" OVL_SUB "/" OVL_FILE));
	ASSERT_EQ(0, umount(MNT_DIR));
	ASSERT_EQ(0, rm_tree(OVL_WORK "/work"));
	ASSERT_EQ(0, ovl_mount_action(arg));
}

/*
 * The lower file's handle, taken through an overlay with index=on and
 * nfs_export=on, then that overlay mounted afresh (nothing of it cached),
 * and its root opened, unarmed.
 */
static void ovl_handle_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;
	int mount_id;

	ovl_reset(_metadata);
	ASSERT_EQ(0, mount("overlay", MNT_DIR, "overlay", 0, OVL_OPTS_EXPORT))
	{
		TH_LOG("mounting the overlay (unarmed): %s", strerror(errno));
	}
	st->ovl_fh->handle_bytes = MAX_HANDLE_SZ;
	ASSERT_EQ(0, name_to_handle_at(AT_FDCWD, MNT_DIR "/" OVL_FILE,
				       st->ovl_fh, &mount_id, 0));
	ASSERT_EQ(0, umount(MNT_DIR));
	ASSERT_EQ(0, mount("overlay", MNT_DIR, "overlay", 0, OVL_OPTS_EXPORT));
	st->ovl_root = open(MNT_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, st->ovl_root);
}

/*
 * open_by_handle_at() of the lower file's handle through the fresh
 * overlay: the lower file decoded from its handle
 * (fs/overlayfs/export.c: ovl_lower_fh_to_d(), namei.c:
 * ovl_check_origin_fh()), its index looked up by the handle's name
 * (ovl_get_index_name_fh()), its overlay dentry and inode, the file.
 */
static int ovl_handle_action(void *arg)
{
	struct task_state *st = arg;
	int fd = open_by_handle_at(st->ovl_root, st->ovl_fh,
				   O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	st->ovl_fd = fd;
	return fd;
}

/*
 * A success: the fd is the action's, and the overlay's file: the same
 * inode, the lower file's bytes. A failure: no fd (the engine counts them).
 * Either way the layers are as the mount left them.
 */
static bool ovl_handle_check(void *arg, int ret, char *why, size_t size)
{
	static char buf[OVL_FILE_LEN + 1];
	struct task_state *st = arg;
	struct stat want, got;
	ssize_t len;

	if (ret < 0 ? st->ovl_fd >= 0 : ret != st->ovl_fd) {
		snprintf(why, size, "open gave %d, yet the action has fd %d",
			 ret, st->ovl_fd);
		return false;
	}
	if (!ovl_layers_are(0,
			    ret < 0 ? "after a failed open" : "after the open",
			    why, size))
		return false;
	if (ret < 0)
		return true;
	if (stat(MNT_DIR "/" OVL_FILE, &want) || fstat(ret, &got)) {
		snprintf(why, size, "stat of the file and of fd %d: %s", ret,
			 strerror(errno));
		return false;
	}
	len = pread(ret, buf, sizeof(buf), 0);
	if (got.st_ino != want.st_ino || got.st_dev != want.st_dev ||
	    len != OVL_FILE_LEN || memcmp(buf, ovl_data, OVL_FILE_LEN)) {
		snprintf(why, size,
			 "fd %d is inode %lu (the file: %lu), reads %zd bytes",
			 ret, (unsigned long)got.st_ino,
			 (unsigned long)want.st_ino, len);
		return false;
	}
	return true;
}

/*
 * getdents64() of the overlay's root, a merged directory, on a new fd:
 * its open (ovl_dir_open()), the cache of its merged entries
 * (fs/overlayfs/readdir.c: ovl_cache_get(), ovl_cache_entry_new()) and the
 * real directories' fds. The fd is closed whatever happens; a success
 * returns the bytes read.
 */
static int ovl_readdir_action(void *arg)
{
	struct task_state *st = arg;
	const char *dir = st->ovl_impure ? MNT_DIR "/" OVL_SUB : MNT_DIR;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long len;

	if (fd < 0)
		return -errno;
	len = syscall(SYS_getdents64, fd, st->ovl_dents, sizeof(st->ovl_dents));
	if (len < 0)
		len = -errno;
	close(fd);
	return len;
}

/*
 * A success: the entries read are ".", "..", the lower file and the lower
 * directory (in OVL_SUB, the moved file alone), each once, of their types.
 * A failure wrote no entry: getdents64() returns an error only when it
 * copied none (fs/readdir.c:407-418, linux 6.12), and ovl_iterate() emits
 * the entries from a cache it must make first; the engine counts the fds.
 */
static bool ovl_readdir_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	struct dirent64 *de;
	int off, dot = 0, dotdot = 0, file = 0, dir = 0, other = 0;

	if (ret < 0 && !ovl_unwritten(st->ovl_dents, sizeof(st->ovl_dents))) {
		snprintf(why, size, "the failed getdents64 wrote entries");
		return false;
	}
	if (ret < 0)
		return true;
	for (off = 0; off < ret; off += de->d_reclen) {
		de = (struct dirent64 *)(st->ovl_dents + off);
		if (!de->d_reclen)
			break;
		if (!strcmp(de->d_name, "."))
			dot++;
		else if (!strcmp(de->d_name, ".."))
			dotdot++;
		else if (!strcmp(de->d_name, OVL_FILE) && de->d_type == DT_REG)
			file++;
		else if (!strcmp(de->d_name, OVL_DIR) && de->d_type == DT_DIR)
			dir++;
		else
			other++;
	}
	if (off != ret || dot != 1 || dotdot != 1 || file != 1 ||
	    dir != !st->ovl_impure || other) {
		const char *fmt =
			"getdents gave %d bytes: %d \".\", %d \"..\", %d file, %d dir, %d other";

		snprintf(why, size, fmt, ret, dot, dotdot, file, dir, other);
		return false;
	}
	return true;
}

/*
 * Closes the fds and unmounts; the upper layer goes with the next reset.
 */
static void ovl_mounted_cleanup(struct __test_metadata *_metadata, void *arg,
				int ret)
{
	struct task_state *st = arg;

	close_fd(&st->ovl_fd);
	close_fd(&st->ovl_root);
	EXPECT_EQ(0, umount2(MNT_DIR, 0))
	{
		TH_LOG("unmounting %s: %s", MNT_DIR, strerror(errno));
	}
}

/*
 * mkdir of a child cgroup: its kernfs directory and interface files, and
 * the state of each controller the parent enables for it (the memory
 * controller's counters, per-CPU statistics and LRU lists, ...).
 */
static int cgroup_action(void *arg)
{
	return mkdir(CG_DIR, 0755) ? -errno : 0;
}

/*
 * A success: the cgroup with its interface files, the memory controller's
 * among them where the parent enables it, and this process can join it
 * (and go back to its own). A failure: no directory left.
 */
static bool cgroup_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	char pid[16];
	int fd, err = 0;

	if (ret < 0) {
		if (access(CG_DIR, F_OK) && errno == ENOENT)
			return true;
		snprintf(why, size, "mkdir failed, yet %s is there", CG_DIR);
		return false;
	}
	if (access(CG_DIR "/cgroup.procs", W_OK) ||
	    (st->cg_memory && access(CG_DIR "/memory.max", R_OK))) {
		snprintf(why, size, "the new cgroup lacks %s: %s",
			 errno == ENOENT && st->cg_memory ?
				 "an interface file" :
				 "cgroup.procs",
			 strerror(errno));
		return false;
	}
	snprintf(pid, sizeof(pid), "%d", getpid());
	fd = open(CG_DIR "/cgroup.procs", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, pid, strlen(pid)) < 0)
		err = errno;
	if (fd >= 0)
		close(fd);
	fd = open(st->cg_home, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, pid, strlen(pid)) < 0)
		err = err ? err : errno;
	if (fd >= 0)
		close(fd);
	if (err) {
		snprintf(why, size, "moving into the new cgroup and back: %s",
			 strerror(err));
		return false;
	}
	return true;
}

static void cgroup_cleanup(struct __test_metadata *_metadata, void *arg,
			   int ret)
{
	if (ret < 0)
		return;
	ASSERT_EQ(0, rmdir(CG_DIR))
	{
		TH_LOG("removing %s: %s", CG_DIR, strerror(errno));
	}
}

/*
 * The line "@field:" of /proc/@pid/status (0: this process's) into @line,
 * without its name and newline: 0, or -errno.
 */
static int status_line(pid_t pid, const char *field, char *line, size_t size)
{
	char path[64], key[32], buf[4096], *at;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/status", pid ? pid : getpid());
	len = read_file(path, buf, sizeof(buf));
	if (len < 0)
		return len;
	snprintf(key, sizeof(key), "\n%s:\t", field);
	at = strstr(buf, key);
	if (!at)
		return -ENOENT;
	at += strlen(key);
	snprintf(line, size, "%.*s", (int)strcspn(at, "\n"), at);
	return 0;
}

/* The number that line gives, in @base, or -errno. */
static long long status_num(pid_t pid, const char *field, int base)
{
	char line[64];
	int err = status_line(pid, field, line, sizeof(line));

	return err ? err : strtoll(line, NULL, base);
}

/* The "SigQ" count of /proc/self/status, or -errno. */
static long sigq(void)
{
	return status_num(0, "SigQ", 10);
}

/*
 * A POSIX timer (CONFIG_POSIX_TIMERS): its k_itimer, and the sigqueue
 * preallocated for its expiry, which counts in SigQ whether the timer is
 * armed or not.
 */
static void timer_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;

	st->timer_made = false;
	st->sigq_before = sigq();
	ASSERT_LE(0, st->sigq_before);
}

static int timer_action(void *arg)
{
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	struct task_state *st = arg;

	if (syscall(SYS_timer_create, CLOCK_MONOTONIC, &sev, &st->timer))
		return -errno;
	st->timer_made = true;
	return 0;
}

/*
 * A success: the timer can be armed and read back, and its signal is
 * counted. A failure: no signal more is counted.
 */
static bool timer_check(void *arg, int ret, char *why, size_t size)
{
	struct itimerspec its = { .it_value.tv_sec = 100 }, got = {};
	struct task_state *st = arg;
	long now = sigq(), want = st->sigq_before + (ret < 0 ? 0 : 1);

	if (now != want) {
		snprintf(why, size, "SigQ %ld, expected %ld", now, want);
		return false;
	}
	if (ret < 0)
		return true;
	if (syscall(SYS_timer_settime, st->timer, 0, &its, NULL) ||
	    syscall(SYS_timer_gettime, st->timer, &got)) {
		snprintf(why, size, "the new timer: %s", strerror(errno));
		return false;
	}
	if (!got.it_value.tv_sec && !got.it_value.tv_nsec) {
		snprintf(why, size, "the new timer reads as disarmed");
		return false;
	}
	return true;
}

/* Deletes the timer made; its signal is counted no more. */
static void timer_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	struct task_state *st = arg;

	if (st->timer_made)
		EXPECT_EQ(0, syscall(SYS_timer_delete, st->timer));
	st->timer_made = false;
	EXPECT_EQ(st->sigq_before, sigq());
}

/*
 * Keys: a "user" key added to the session keyring, and a session keyring
 * of a new name joined. Each point starts in an anonymous session keyring
 * of its own, made unarmed.
 */
#define KEY_DESC "failnth"
#define KEY_LEN 64

static long keyctl(int cmd, unsigned long a, unsigned long b, unsigned long c)
{
	return syscall(__NR_keyctl, cmd, a, b, c, 0);
}

static void key_payload(char *buf)
{
	int i;

	for (i = 0; i < KEY_LEN; i++)
		buf[i] = (char)(i * 7 + 1);
}

static void key_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;

	ASSERT_LT(0, keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0));
	st->key_before = keyctl(KEYCTL_GET_KEYRING_ID,
				(unsigned long)KEY_SPEC_SESSION_KEYRING, 0, 0);
	ASSERT_LT(0, st->key_before);
}

static int add_key_action(void *arg)
{
	char payload[KEY_LEN];
	long ret;

	key_payload(payload);
	ret = syscall(__NR_add_key, "user", KEY_DESC, payload, KEY_LEN,
		      KEY_SPEC_SESSION_KEYRING);
	return ret < 0 ? -errno : (int)ret;
}

/*
 * A success (@ret, a key id): the session keyring finds the key, which
 * reads back as the @len bytes of @want, into @got (room for one byte
 * more). A failure: the keyring finds none.
 */
static bool user_key_is(int ret, const char *want, long len, char *got,
			size_t got_size, char *why, size_t size)
{
	long found = keyctl(KEYCTL_SEARCH,
			    (unsigned long)KEY_SPEC_SESSION_KEYRING,
			    (unsigned long)"user", (unsigned long)KEY_DESC);
	long n;

	if (ret < 0) {
		if (found < 0 && errno == ENOKEY)
			return true;
		snprintf(why, size, "add_key failed, yet the search gives %ld",
			 found);
		return false;
	}
	if (found != ret) {
		snprintf(why, size, "add_key gave key %d, the search %ld", ret,
			 found);
		return false;
	}
	n = keyctl(KEYCTL_READ, ret, (unsigned long)got, got_size);
	if (n != len || memcmp(got, want, len)) {
		snprintf(why, size, "key %d reads back %ld bytes, not %ld", ret,
			 n, len);
		return false;
	}
	return true;
}

/* A success: the key reads back as the payload given. */
static bool add_key_check(void *arg, int ret, char *why, size_t size)
{
	char want[KEY_LEN], got[KEY_LEN + 1];

	key_payload(want);
	return user_key_is(ret, want, KEY_LEN, got, sizeof(got), why, size);
}

static void add_key_cleanup(struct __test_metadata *_metadata, void *arg,
			    int ret)
{
	if (ret < 0)
		return;
	ASSERT_EQ(0, keyctl(KEYCTL_UNLINK, ret,
			    (unsigned long)KEY_SPEC_SESSION_KEYRING, 0))
	{
		TH_LOG("unlinking key %d: %s", ret, strerror(errno));
	}
}

/* A name no keyring has yet, so that joining it makes one. */
static int keyring_action(void *arg)
{
	struct task_state *st = arg;
	char name[32];
	long ret;

	snprintf(name, sizeof(name), "failnth-%u", ++st->key_seq);
	ret = keyctl(KEYCTL_JOIN_SESSION_KEYRING, (unsigned long)name, 0, 0);
	return ret < 0 ? -errno : (int)ret;
}

/*
 * A success: the new keyring is this process's session keyring, under
 * its name. A failure: the session keyring is still the one before.
 */
static bool keyring_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	long now = keyctl(KEYCTL_GET_KEYRING_ID,
			  (unsigned long)KEY_SPEC_SESSION_KEYRING, 0, 0);
	char desc[128] = "", want[48];

	if (ret < 0) {
		if (now == st->key_before)
			return true;
		snprintf(why, size,
			 "join failed, but the session is %ld, not %d", now,
			 st->key_before);
		return false;
	}
	if (now != ret) {
		snprintf(why, size, "joined keyring %d, but the session is %ld",
			 ret, now);
		return false;
	}
	/* "keyring;uid;gid;perm;name" */
	snprintf(want, sizeof(want), ";failnth-%u", st->key_seq);
	keyctl(KEYCTL_DESCRIBE, ret, (unsigned long)desc, sizeof(desc));
	if (!strstr(desc, want)) {
		snprintf(why, size, "keyring %d is \"%s\", not %s", ret, desc,
			 want + 1);
		return false;
	}
	return true;
}

/* execve() of this program, in a traced child. */

static int exec_action(void *arg)
{
	struct task_state *st = arg;
	char *const argv[] = { st->exe, EXEC_ARG, NULL };
	char *const envp[] = { NULL };

	execve(st->exe, argv, envp);
	return -errno;
}

/* A failure before the point of no return: the old image goes on. */
static bool exec_check(void *arg, int ret, char *why, size_t size)
{
	return true;
}

/* unshare() of one namespace, in a child. */

/* The inode of /proc/self/ns/@name, or 0. */
static ino_t ns_ino(const char *name)
{
	char path[64];
	struct stat sb;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	return stat(path, &sb) ? 0 : sb.st_ino;
}

static int unshare_prepare(void *arg)
{
	struct task_state *st = arg;

	st->ns_before = ns_ino(st->ns_name);
	return st->ns_before ? 0 : -ENOENT;
}

static int unshare_action(void *arg)
{
	struct task_state *st = arg;

	return unshare(st->ns_flag) ? -errno : 0;
}

/* In a new pid namespace, the first child is its pid 1. */
static bool pid_ns_usable(char *why, size_t size)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		snprintf(why, size, "fork in the new pid namespace: %s",
			 strerror(errno));
		return false;
	}
	if (!pid)
		_exit(getpid() == 1 ? 0 : 1);
	if (waitpid(pid, &status, 0) != pid || status) {
		const char *fmt =
			"first child of the new pid namespace is not pid 1 (status 0x%x)";

		snprintf(why, size, fmt, status);
		return false;
	}
	return true;
}

/* Whether the new namespace works: a small use of each kind. */
static bool ns_usable(struct task_state *st, char *why, size_t size)
{
	struct utsname u;
	int fd;

	switch (st->ns_flag) {
	case CLONE_NEWUTS:
		if (sethostname("failnth", 7) || uname(&u) ||
		    strcmp(u.nodename, "failnth"))
			break;
		return true;
	case CLONE_NEWNET:
		if (if_nametoindex("lo") != 1)
			break;
		return true;
	case CLONE_NEWPID:
		return pid_ns_usable(why, size);
	case CLONE_NEWUSER:
		/* Nothing mapped yet: this process is the overflow uid. */
		if (getuid() != 65534)
			break;
		return true;
	case CLONE_NEWNS:
		fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		close(fd);
		return true;
	default:
		return true;
	}
	snprintf(why, size, "the new %s namespace is not usable: %s",
		 st->ns_name, strerror(errno));
	return false;
}

/*
 * A success: a new namespace, usable. A failure: the old one. A new pid
 * namespace has no inode to show until its first process (its init) is
 * made, so that one is looked at after the use.
 */
static bool unshare_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	bool pid_ok = false;
	ino_t now;

	if (ret >= 0 && st->ns_flag == CLONE_NEWPID) {
		if (ns_ino(st->ns_name) || errno != ENOENT) {
			const char *fmt =
				"after unshare, %s is not a pid namespace without init";

			snprintf(why, size, fmt, st->ns_name);
			return false;
		}
		if (!pid_ns_usable(why, size))
			return false;
		pid_ok = true;
	}
	now = ns_ino(st->ns_name);

	if (!now) {
		snprintf(why, size, "stat of /proc/self/ns/%s: %s", st->ns_name,
			 strerror(errno));
		return false;
	}
	if (ret < 0 && now != st->ns_before) {
		snprintf(why, size, "unshare failed, yet %s namespace changed",
			 st->ns_name);
		return false;
	}
	if (ret >= 0 && now == st->ns_before) {
		snprintf(why, size, "unshare succeeded, %s namespace unchanged",
			 st->ns_name);
		return false;
	}
	return ret < 0 || pid_ok || ns_usable(st, why, size);
}

/*
 * A seccomp filter, in a child: none can be taken off again. It fails
 * getppid() with EPERM, a call that cannot fail otherwise, and allows the
 * rest (this child makes only native calls: it does not look at the arch).
 */
#define SECCOMP_ERRNO EPERM

static int seccomp_prepare(void *arg)
{
	/* What an unprivileged caller needs; root may, too. */
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ? -errno : 0;
}

static int seccomp_action(void *arg)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | SECCOMP_ERRNO),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = ARRAY_SIZE(insns),
		.filter = insns,
	};

	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return -errno;
	return 0;
}

/*
 * A success: this task is in filter mode, and the filter works. A
 * failure: no filter, and getppid() as ever.
 */
static bool seccomp_check(void *arg, int ret, char *why, size_t size)
{
	static const char fmt[] = "seccomp %s, yet mode %d and getppid() %s";
	int mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	int err = syscall(SYS_getppid) < 0 ? errno : 0;
	bool ok;

	if (ret >= 0)
		ok = mode == SECCOMP_MODE_FILTER && err == SECCOMP_ERRNO;
	else
		ok = mode == SECCOMP_MODE_DISABLED && !err;
	if (!ok)
		snprintf(why, size, fmt, ret >= 0 ? "succeeded" : "failed",
			 mode, err ? strerror(err) : "works");
	return ok;
}

/*
 * Writes to a file opened in prepare, so that the points are the write's
 * alone: a cgroup's interface file, a /proc file.
 */

/* Opens @path for writing into st->wfd, to be written @val. */
static void wfd_open(struct __test_metadata *_metadata, struct task_state *st,
		     const char *path, const char *val)
{
	st->wfd = open(path, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, st->wfd)
	{
		TH_LOG("opening %s: %s", path, strerror(errno));
	}
	snprintf(st->wval, sizeof(st->wval), "%s", val);
}

/* The write: 0 when all of st->wval went in, else -errno (-EIO: short). */
static int wfd_action(void *arg)
{
	struct task_state *st = arg;
	ssize_t len = strlen(st->wval), ret = write(st->wfd, st->wval, len);

	if (ret < 0)
		return -errno;
	return ret == len ? 0 : -EIO;
}

static void wfd_close(struct task_state *st)
{
	close_fd(&st->wfd);
}

/* Reads @path into @buf, its first line only: its length, or -errno. */
static ssize_t read_line(const char *path, char *buf, size_t size)
{
	ssize_t len = read_file(path, buf, size);

	if (len < 0)
		return len;
	buf[strcspn(buf, "\n")] = '\0';
	return strlen(buf);
}

/*
 * The memory the peer scenarios write in a stopped child: PEER_OLD there,
 * PEER_NEW written from this process's peer_new. More pages than
 * process_vm_writev() keeps on its stack (PVM_MAX_PP_ARRAY_COUNT, 16).
 */
#define PEER_LEN (20 * 4096)
#define PEER_OLD 'o'
#define PEER_NEW 'n'

static char peer_buf[PEER_LEN];
static char peer_new[PEER_LEN];

/*
 * What the peer reads give: the child's /proc file read, and what this
 * process's own reads (the same, as the child is its fork).
 */
#define PEER_READ_LEN 4096
static char peer_got[PEER_READ_LEN], peer_want[PEER_READ_LEN];

/*
 * A child that waits, stopped, for the scenario to act on it, after
 * unshare(@flags) (none: 0); the test reaps it in pidfd_cleanup(). It
 * writes peer_buf first, so that those pages are its own and not shared
 * copy-on-write with this process: a write to them from outside would
 * otherwise allocate, which is not what the peer scenarios are about.
 */
static void stopped_child(struct __test_metadata *_metadata,
			  struct task_state *st, int flags)
{
	int status;
	pid_t pid;

	pid = fork_bound();
	ASSERT_LE(0, pid);
	if (!pid) {
		memset(peer_buf, PEER_OLD, sizeof(peer_buf));
		if (flags && unshare(flags))
			_exit(1);
		raise(SIGSTOP);
		pause();
		_exit(0);
	}
	st->pid = pid;
	ASSERT_EQ(pid, waitpid(pid, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status))
	{
		TH_LOG("child %d ended with status 0x%x, not stopped", pid,
		       status);
	}
}

/*
 * process_vm_writev() of PEER_LEN bytes into the child:
 * mm/process_vm_access.c:process_vm_rw_core() allocates the array of its
 * pages when there are more than 16 (mm/process_vm_access.c:185-193,
 * ENOMEM, linux 6.12).
 */
static const int peer_vm_errnos[] = { ENOMEM, 0 };

/*
 * A write to /proc/PID/mem of the child: fs/proc/base.c:mem_rw() copies
 * through a page it allocates (fs/proc/base.c:891-893, ENOMEM, linux
 * 6.12).
 */
static const int peer_mem_errnos[] = { ENOMEM, 0 };

static void peer_vm_prepare(struct __test_metadata *_metadata, void *arg)
{
	stopped_child(_metadata, arg, 0);
}

static int peer_vm_action(void *arg)
{
	struct task_state *st = arg;
	struct iovec local = { .iov_base = peer_new, .iov_len = PEER_LEN };
	struct iovec remote = { .iov_base = peer_buf, .iov_len = PEER_LEN };
	ssize_t ret = process_vm_writev(st->pid, &local, 1, &remote, 1, 0);

	return ret < 0 ? -errno : (int)ret;
}

static void peer_mem_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;
	char path[64];

	stopped_child(_metadata, st, 0);
	snprintf(path, sizeof(path), "/proc/%d/mem", st->pid);
	wfd_open(_metadata, st, path, "");
}

static int peer_mem_action(void *arg)
{
	struct task_state *st = arg;
	ssize_t ret =
		pwrite(st->wfd, peer_new, PEER_LEN, (off_t)(uintptr_t)peer_buf);

	return ret < 0 ? -errno : (int)ret;
}

/*
 * A success: the child's peer_buf reads PEER_NEW, a short one in its
 * first @ret bytes only; the rest, and all of it after a failure, reads
 * PEER_OLD (read with process_vm_readv(), unarmed).
 */
static bool peer_check(void *arg, int ret, char *why, size_t size)
{
	static char got[PEER_LEN];
	struct task_state *st = arg;
	struct iovec local = { .iov_base = got, .iov_len = PEER_LEN };
	struct iovec remote = { .iov_base = peer_buf, .iov_len = PEER_LEN };
	int done = ret < 0 ? 0 : ret, i;

	if (process_vm_readv(st->pid, &local, 1, &remote, 1, 0) != PEER_LEN) {
		snprintf(why, size, "reading child %d back: %s", st->pid,
			 strerror(errno));
		return false;
	}
	for (i = 0; i < PEER_LEN; i++) {
		if (got[i] == (i < done ? PEER_NEW : PEER_OLD))
			continue;
		snprintf(why, size, "the write gave %d, yet byte %d is '%c'",
			 ret, i, got[i]);
		return false;
	}
	return true;
}

/*
 * Reads of the child's /proc files: fs/proc/base.c:environ_read() copies
 * through a page it allocates (fs/proc/base.c:999-1001),
 * fs/proc/task_mmu.c:pagemap_read() allocates its buffer of entries
 * (fs/proc/task_mmu.c:1999-2002), proc_pid_stack() its array of return
 * addresses (fs/proc/base.c:480-483, CONFIG_STACKTRACE) and
 * proc_map_files_readdir() the list of mapped files (fs/proc/base.c:
 * 2437-2439, genradix_ptr_alloc()); each ENOMEM (linux 6.12), as are
 * the path walk's name and dentry (readlink()) and an open's file and
 * seq_file (smaps_rollup).
 */
static const int peer_read_errnos[] = { ENOMEM, 0 };

#define READ_QUERY "a read changes nothing: a success leaves no trace"

/*
 * The entries in /proc/PID/pagemap of the whole pages within peer_buf,
 * and the bit of a present page (PM_PRESENT, fs/proc/task_mmu.c:1656).
 */
#define PAGEMAP_PAGES (PEER_LEN / 4096 - 1)
#define PAGEMAP_LEN (PAGEMAP_PAGES * sizeof(uint64_t))
#define PAGEMAP_PRESENT 0x8000000000000000ULL

/* The child's /proc/PID/@name, open for reading in wfd. */
static void peer_open(struct __test_metadata *_metadata, struct task_state *st,
		      const char *name)
{
	char path[64];

	stopped_child(_metadata, st, 0);
	snprintf(path, sizeof(path), "/proc/%d/%s", st->pid, name);
	st->wfd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, st->wfd)
	{
		TH_LOG("opening %s: %s", path, strerror(errno));
	}
	memset(peer_got, 0, sizeof(peer_got));
}

/*
 * The child's environment, and this process's own to compare: as much of
 * it as one read of PEER_READ_LEN gives, which is all of it only when it
 * is shorter (make run_tests' environment is not).
 */
static ssize_t peer_environ_len;

static void peer_environ_prepare(struct __test_metadata *_metadata, void *arg)
{
	static char env[PEER_READ_LEN + 1];

	peer_open(_metadata, arg, "environ");
	peer_environ_len = read_file("/proc/self/environ", env, sizeof(env));
	ASSERT_LT(0, peer_environ_len);
	memcpy(peer_want, env, peer_environ_len);
}

/* Reads wfd from its start (the child's environ or stack, memory.stat). */
static int peer_read_action(void *arg)
{
	struct task_state *st = arg;
	ssize_t ret = pread(st->wfd, peer_got, sizeof(peer_got), 0);

	return ret < 0 ? -errno : (int)ret;
}

/*
 * A success: the child's environment is this process's, all that the read
 * asked for.
 */
static bool peer_environ_check(void *arg, int ret, char *why, size_t size)
{
	if (ret < 0)
		return true;
	if (ret != peer_environ_len || memcmp(peer_got, peer_want, ret)) {
		snprintf(why, size,
			 "%d bytes of environ, not this process's %zd", ret,
			 peer_environ_len);
		return false;
	}
	return true;
}

static void peer_pagemap_prepare(struct __test_metadata *_metadata, void *arg)
{
	peer_open(_metadata, arg, "pagemap");
}

static int peer_pagemap_action(void *arg)
{
	struct task_state *st = arg;
	off_t at = ((uintptr_t)peer_buf + 4095) / 4096 * sizeof(uint64_t);
	ssize_t ret = pread(st->wfd, peer_got, PAGEMAP_LEN, at);

	return ret < 0 ? -errno : (int)ret;
}

/* The child's kernel stack, and the same read unarmed to compare. */
static void peer_stack_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;
	char path[64];

	peer_open(_metadata, st, "stack");
	snprintf(path, sizeof(path), "/proc/%d/stack", st->pid);
	memset(peer_want, 0, sizeof(peer_want));
	ASSERT_LT(0, read_file(path, peer_want, sizeof(peer_want)));
}

/* A success: the stack, as read unarmed, the same in a stopped child. */
static bool peer_stack_check(void *arg, int ret, char *why, size_t size)
{
	if (ret < 0)
		return true;
	if (ret != strlen(peer_want) || memcmp(peer_got, peer_want, ret)) {
		snprintf(why, size, "%d bytes of the stack, not the %zu read",
			 ret, strlen(peer_want));
		return false;
	}
	return true;
}

/*
 * The names in the child's map_files, one a line, into @buf: their
 * length, or -errno. All the calls of getdents64() to the end.
 */
static int map_files_names(int fd, char *buf, size_t size)
{
	char dents[1024];
	size_t len = 0;
	long n, at;

	if (lseek(fd, 0, SEEK_SET))
		return -errno;
	while ((n = syscall(SYS_getdents64, fd, dents, sizeof(dents))) > 0) {
		for (at = 0; at < n;) {
			struct dirent64 *d = (void *)(dents + at);

			len += snprintf(buf + len, size - len, "%s\n",
					d->d_name);
			if (len >= size)
				return -ENOSPC;
			at += d->d_reclen;
		}
	}
	return n < 0 ? -errno : (int)len;
}

/* The child's map_files, listed unarmed to compare. */
static void peer_map_files_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;

	peer_open(_metadata, st, "map_files");
	memset(peer_want, 0, sizeof(peer_want));
	ASSERT_LT(0, map_files_names(st->wfd, peer_want, sizeof(peer_want)));
}

static int peer_map_files_action(void *arg)
{
	struct task_state *st = arg;

	return map_files_names(st->wfd, peer_got, sizeof(peer_got));
}

/* A success: the names listed unarmed, all of them. */
static bool peer_map_files_check(void *arg, int ret, char *why, size_t size)
{
	if (ret < 0)
		return true;
	if (ret != strlen(peer_want) || memcmp(peer_got, peer_want, ret)) {
		snprintf(why, size, "map_files lists %d bytes, not %zu", ret,
			 strlen(peer_want));
		return false;
	}
	return true;
}

/*
 * readlink() of the child's /proc/PID/exe: fs/proc/base.c:
 * do_proc_readlink() allocates the path's buffer (fs/proc/base.c:
 * 1819-1824, ENOMEM, linux 6.12). The link is looked up unarmed first, so
 * that its dentry and inode are there.
 */
static void peer_readlink_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;

	stopped_child(_metadata, st, 0);
	snprintf(st->wval, sizeof(st->wval), "/proc/%d/exe", st->pid);
	memset(peer_want, 0, sizeof(peer_want));
	ASSERT_LT(0, readlink(st->wval, peer_want, sizeof(peer_want) - 1));
	memset(peer_got, 0, sizeof(peer_got));
}

static int peer_readlink_action(void *arg)
{
	struct task_state *st = arg;
	ssize_t ret = readlink(st->wval, peer_got, sizeof(peer_got) - 1);

	return ret < 0 ? -errno : (int)ret;
}

/* A success: this program, the child's image, as read unarmed. */
static bool peer_readlink_check(void *arg, int ret, char *why, size_t size)
{
	if (ret < 0)
		return true;
	if (ret != strlen(peer_want) || memcmp(peer_got, peer_want, ret)) {
		snprintf(why, size, "exe reads \"%.*s\", not \"%s\"", ret,
			 peer_got, peer_want);
		return false;
	}
	return true;
}

/*
 * open() of the child's /proc/PID/smaps_rollup: fs/proc/task_mmu.c:
 * smaps_rollup_open() allocates its private state (task_mmu.c:1324-1326)
 * and single_open_size() its seq_file, each ENOMEM (linux 6.12). The path
 * is looked up unarmed first, so that its dentries and inodes are there:
 * an armed lookup of a new /proc/PID entry whose inode cannot be
 * allocated fails with ENOENT, which is F13, swept elsewhere.
 */
static void peer_rollup_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;
	struct stat sb;

	stopped_child(_metadata, st, 0);
	snprintf(st->wval, sizeof(st->wval), "/proc/%d/smaps_rollup", st->pid);
	ASSERT_EQ(0, stat(st->wval, &sb));
}

static int peer_rollup_action(void *arg)
{
	struct task_state *st = arg;

	st->wfd = open(st->wval, O_RDONLY | O_CLOEXEC);
	return st->wfd < 0 ? -errno : 0;
}

/*
 * A success: the fd reads the child's totals, its peer_buf pages
 * resident among them. A failure: no fd (the engine finds any left).
 */
static bool peer_rollup_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	char buf[2048] = "", *at;
	long rss = -1;

	if (ret < 0)
		return true;
	if (read(st->wfd, buf, sizeof(buf) - 1) > 0) {
		at = strstr(buf, "\nRss:");
		if (at)
			rss = strtol(at + 5, NULL, 10);
	}
	if (rss < PEER_LEN / 1024) {
		snprintf(why, size, "smaps_rollup gives Rss %ld kB, not >= %d",
			 rss, PEER_LEN / 1024);
		return false;
	}
	return true;
}

/* A success: every page of peer_buf, which the child wrote, is present. */
static bool peer_pagemap_check(void *arg, int ret, char *why, size_t size)
{
	uint64_t entry;
	int i;

	if (ret < 0)
		return true;
	for (i = 0; i < PAGEMAP_PAGES; i++) {
		memcpy(&entry, peer_got + i * sizeof(entry), sizeof(entry));
		if (ret == PAGEMAP_LEN && (entry & PAGEMAP_PRESENT))
			continue;
		snprintf(why, size, "pagemap: %d bytes, page %d not present",
			 ret, i);
		return false;
	}
	return true;
}

/*
 * A write to a cgroup's interface file: fs/kernfs/file.c:
 * kernfs_fop_write_iter() copies it into a buffer of its own, ENOMEM when
 * that cannot be allocated (fs/kernfs/file.c:329-331); moving a process
 * into a cgroup reports a css_set or one of its links that cannot be
 * allocated as ENOMEM (kernel/cgroup/cgroup.c:2864, find_css_set()
 * failing in cgroup_migrate_prepare_dst(); 1147,
 * allocate_cgrp_cset_links(); linux 6.12).
 */
static const int cg_write_errnos[] = { ENOMEM, 0 };

/* The PSI trigger's errnos, below: ENOMEM too. */
#define psi_errnos cg_write_errnos

/* The "0::/PATH" line of /proc/@pid/cgroup (0: this process's own). */
static ssize_t cg_of(pid_t pid, char *buf, size_t size)
{
	char path[64];

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/cgroup");
	return read_line(path, buf, size);
}

/* Moving a stopped child into CG_DIR, by its pid in cgroup.procs. */
static void cg_attach_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;
	char pid[16];

	stopped_child(_metadata, st, 0);
	snprintf(pid, sizeof(pid), "%d", st->pid);
	wfd_open(_metadata, st, CG_DIR "/cgroup.procs", pid);
	ASSERT_LT(0, cg_of(0, st->wold, sizeof(st->wold)));
}

/*
 * A success: the child is in CG_DIR. A failure: in this process's
 * cgroup, where it was made.
 */
static bool cg_attach_check(void *arg, int ret, char *why, size_t size)
{
	const char *want = CG_LINE;
	struct task_state *st = arg;
	char now[256];

	if (cg_of(st->pid, now, sizeof(now)) < 0) {
		snprintf(why, size, "/proc/%d/cgroup: %s", st->pid,
			 strerror(errno));
		return false;
	}
	if (ret >= 0 ? strcmp(now, want) : strcmp(now, st->wold)) {
		snprintf(why, size, "the move %s, yet the child is in %s",
			 ret >= 0 ? "succeeded" : "failed", now);
		return false;
	}
	return true;
}

/* Closes the file written and kills and reaps the child written about. */
static void child_wfd_cleanup(struct __test_metadata *_metadata, void *arg,
			      int ret)
{
	wfd_close(arg);
	pidfd_cleanup(_metadata, arg, ret);
}

/*
 * open() of CG_DIR's cgroup.procs, with the stopped child moved in
 * unarmed: kernel/cgroup/cgroup.c:cgroup_file_open() allocates the
 * file's context (kernel/cgroup/cgroup.c:4171-4173, ENOMEM), kernfs its
 * open file and seq_file (fs/kernfs/file.c), ENOMEM too (linux 6.12).
 */
static void cg_open_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;
	char pid[16];

	cg_attach_prepare(_metadata, arg);
	ASSERT_EQ(0, wfd_action(arg));
	wfd_close(st);
	snprintf(pid, sizeof(pid), "%d\n", st->pid);
	snprintf(st->wold, sizeof(st->wold), "%s", pid);
}

static int cg_open_action(void *arg)
{
	struct task_state *st = arg;

	st->wfd = open(CG_DIR "/cgroup.procs", O_RDONLY | O_CLOEXEC);
	return st->wfd < 0 ? -errno : 0;
}

/*
 * A success: the fd lists the child, alone in CG_DIR. A failure: no fd
 * (the engine finds any left).
 */
static bool cg_open_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	char got[64] = "";

	if (ret < 0)
		return true;
	if (pread(st->wfd, got, sizeof(got) - 1, 0) < 0 ||
	    strcmp(got, st->wold)) {
		snprintf(why, size, "cgroup.procs lists \"%s\", not %d", got,
			 st->pid);
		return false;
	}
	return true;
}

/*
 * A read of CG_DIR's memory.stat: mm/memcontrol.c:memory_stat_show()
 * formats it in a page it allocates (mm/memcontrol.c:4235-4239, ENOMEM,
 * linux 6.12), and seq_read_iter() its buffer.
 */
static void cg_stat_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;

	st->wfd = open(CG_DIR "/memory.stat", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, st->wfd);
	memset(peer_got, 0, sizeof(peer_got));
}

/* A success: the statistics, from the first ("anon") to the "file" one. */
static bool cg_stat_check(void *arg, int ret, char *why, size_t size)
{
	if (ret < 0)
		return true;
	if (ret < 10 || strncmp(peer_got, "anon ", 5) ||
	    !strstr(peer_got, "\nfile ")) {
		snprintf(why, size, "memory.stat reads %d bytes: \"%.20s\"",
			 ret, peer_got);
		return false;
	}
	return true;
}

/*
 * The memory controller enabled in CG_DIR's cgroup.subtree_control, for
 * its child cgroup CG_SUB (made by the setup): the controller's state for
 * it (css_create(): kernel/cgroup/cgroup.c:5704-5706, ENOMEM) and its
 * kernfs interface files (ENOMEM too), as the kernfs buffer of the write
 * (linux 6.12).
 */
#define CG_SUB CG_DIR "/sub"

static void cg_subtree_prepare(struct __test_metadata *_metadata, void *arg)
{
	wfd_open(_metadata, arg, CG_DIR "/cgroup.subtree_control", "+memory");
}

/*
 * A success: CG_DIR gives its child the memory controller, whose files
 * CG_SUB has. A failure: neither.
 */
static bool cg_subtree_check(void *arg, int ret, char *why, size_t size)
{
	char ctl[256] = "";
	bool on, files;

	if (read_line(CG_DIR "/cgroup.subtree_control", ctl, sizeof(ctl)) < 0) {
		snprintf(why, size, "reading cgroup.subtree_control: %s",
			 strerror(errno));
		return false;
	}
	on = !!strstr(ctl, "memory");
	files = !access(CG_SUB "/memory.max", F_OK);
	if (ret >= 0 && on && files)
		return true;
	if (ret < 0 && !on && !files)
		return true;
	snprintf(why, size, "enabling %s, yet \"%s\" and %s memory.max",
		 ret >= 0 ? "succeeded" : "failed", ctl, files ? "a" : "no");
	return false;
}

/* Disables the controller again. */
static void cg_subtree_cleanup(struct __test_metadata *_metadata, void *arg,
			       int ret)
{
	wfd_close(arg);
	if (ret >= 0)
		ASSERT_EQ(0, write_file(CG_DIR "/cgroup.subtree_control",
					"-memory"));
}

/*
 * cgroup.freeze and cgroup.kill of CG_DIR, holding the stopped child
 * (moved in unarmed): neither allocates but the kernfs buffer of the
 * write (fs/kernfs/file.c:329-331, ENOMEM).
 */
static void cg_member_prepare(struct __test_metadata *_metadata, void *arg,
			      const char *file)
{
	struct task_state *st = arg;
	char path[PATH_MAX];

	cg_attach_prepare(_metadata, arg);
	ASSERT_EQ(0, wfd_action(arg));
	wfd_close(st);
	snprintf(path, sizeof(path), "%s/%s", CG_DIR, file);
	wfd_open(_metadata, st, path, "1");
}

static void cg_freeze_prepare(struct __test_metadata *_metadata, void *arg)
{
	cg_member_prepare(_metadata, arg, "cgroup.freeze");
}

/* Whether cgroup.events of CG_DIR says "frozen 1", waiting up to 2 s. */
static bool cg_frozen(void)
{
	char events[256];
	int i;

	for (i = 0; i < 200; i++) {
		if (read_file(CG_DIR "/cgroup.events", events, sizeof(events)) >
			    0 &&
		    strstr(events, "frozen 1"))
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * A success: cgroup.freeze reads 1 and the group, the child in it, is
 * frozen. A failure: it reads 0, and the group is not frozen.
 */
static bool cg_freeze_check(void *arg, int ret, char *why, size_t size)
{
	char now[16] = "";
	bool frozen;

	if (read_line(CG_DIR "/cgroup.freeze", now, sizeof(now)) < 0) {
		snprintf(why, size, "reading cgroup.freeze: %s",
			 strerror(errno));
		return false;
	}
	frozen = ret >= 0 ? cg_frozen() : false;
	if (ret >= 0 ? strcmp(now, "1") || !frozen : strcmp(now, "0")) {
		snprintf(why, size, "freeze %s, yet cgroup.freeze %s (%s)",
			 ret >= 0 ? "succeeded" : "failed", now,
			 frozen ? "frozen" : "not frozen");
		return false;
	}
	return true;
}

/* Thaws the group, then kills and reaps the child. */
static void cg_freeze_cleanup(struct __test_metadata *_metadata, void *arg,
			      int ret)
{
	ASSERT_EQ(0, write_file(CG_DIR "/cgroup.freeze", "0"));
	child_wfd_cleanup(_metadata, arg, ret);
}

static void cg_kill_prepare(struct __test_metadata *_metadata, void *arg)
{
	cg_member_prepare(_metadata, arg, "cgroup.kill");
}

/*
 * Whether child @pid is stopped with no SIGKILL pending: the kill
 * (kernel/signal.c:complete_signal()) adds SIGKILL to the pending set of
 * the child's thread before the child runs to its end.
 */
static bool stopped_unkilled(pid_t pid)
{
	char path[64], status[2048], *at;
	unsigned long long pend;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (read_file(path, status, sizeof(status)) < 0)
		return false;
	at = strstr(status, "\nState:\t");
	if (!at || at[8] != 'T')
		return false;
	at = strstr(status, "\nSigPnd:\t");
	if (!at || sscanf(at + 9, "%llx", &pend) != 1 ||
	    pend & (1ULL << (SIGKILL - 1)))
		return false;
	at = strstr(status, "\nShdPnd:\t");
	return at && sscanf(at + 9, "%llx", &pend) == 1 &&
	       !(pend & (1ULL << (SIGKILL - 1)));
}

/*
 * A success: the child is killed, with SIGKILL (reaped here). A failure:
 * it is alive, still stopped, and no SIGKILL is on its way.
 */
static bool cg_kill_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	int status = 0;
	pid_t got;
	int i;

	/* SIGKILL is sent by the write itself; its end takes a moment. */
	for (i = 0; i < 200; i++) {
		got = waitpid(st->pid, &status, WNOHANG);
		if (got || ret < 0)
			break;
		usleep(10000);
	}
	if (got == st->pid)
		st->pid = 0;
	if (ret < 0 && !got && stopped_unkilled(st->pid))
		return true;
	if (ret >= 0 && got > 0 && WIFSIGNALED(status) &&
	    WTERMSIG(status) == SIGKILL)
		return true;
	snprintf(why, size, "kill %s, yet the child: wait %d, status 0x%x",
		 ret >= 0 ? "succeeded" : "failed", got, status);
	return false;
}

/*
 * A PSI trigger on CG_DIR's memory.pressure (CONFIG_PSI): the trigger
 * (kernel/sched/psi.c:1379), and for a privileged caller, as root is, the
 * group's rtpoll worker, a kthread whose creation fails with ENOMEM
 * (kernel/kthread.c:440) and fails the write (kernel/cgroup/cgroup.c:3923,
 * linux 6.12).
 */
#define PSI_TRIGGER "some 150000 2000000"

static void psi_prepare(struct __test_metadata *_metadata, void *arg)
{
	wfd_open(_metadata, arg, CG_DIR "/memory.pressure", PSI_TRIGGER);
}

/*
 * A success: the fd has a trigger, which polls as no event yet (no
 * memory pressure in the empty group). A failure: none, and a pressure
 * file without a trigger polls as POLLERR | POLLPRI
 * (kernel/sched/psi.c:psi_trigger_poll()).
 */
static bool psi_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	struct pollfd pfd = { .fd = st->wfd, .events = POLLPRI };
	int n = poll(&pfd, 1, 0);

	if (n < 0) {
		snprintf(why, size, "poll of the trigger: %s", strerror(errno));
		return false;
	}
	if (ret >= 0 && (pfd.revents & POLLERR)) {
		snprintf(why, size, "the trigger was made, yet it polls 0x%x",
			 pfd.revents);
		return false;
	}
	if (ret < 0 && !(pfd.revents & POLLERR)) {
		snprintf(why, size, "no trigger was made, yet it polls 0x%x",
			 pfd.revents);
		return false;
	}
	return true;
}

/* Closing the file destroys its trigger. */
static void wfd_cleanup(struct __test_metadata *_metadata, void *arg, int ret)
{
	wfd_close(arg);
}

/*
 * A write to a sysctl: fs/proc/proc_sysctl.c:proc_sys_call_handler()
 * copies it into a buffer of its own, ENOMEM when that cannot be allocated
 * (fs/proc/proc_sysctl.c:575-578, linux 6.12).
 */
static const int sysctl_errnos[] = { ENOMEM, 0 };

/* kernel.hostname, in the UTS namespace of the test's own (setup). */
static void hostname_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;
	struct utsname u;

	ASSERT_EQ(0, uname(&u));
	snprintf(st->wold, sizeof(st->wold), "%s", u.nodename);
	wfd_open(_metadata, st, "/proc/sys/kernel/hostname", "failnth-host");
}

/* A success: uname() and the sysctl give the new name. A failure: the old. */
static bool hostname_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	const char *want = ret >= 0 ? st->wval : st->wold;
	char got[256] = "";
	struct utsname u;

	if (uname(&u) ||
	    read_line("/proc/sys/kernel/hostname", got, sizeof(got)) < 0) {
		snprintf(why, size, "reading the hostname: %s",
			 strerror(errno));
		return false;
	}
	if (strcmp(u.nodename, want) || strcmp(got, want)) {
		snprintf(why, size, "hostname %s (sysctl %s), not %s",
			 u.nodename, got, want);
		return false;
	}
	return true;
}

static void hostname_cleanup(struct __test_metadata *_metadata, void *arg,
			     int ret)
{
	struct task_state *st = arg;

	wfd_close(st);
	ASSERT_EQ(0, sethostname(st->wold, strlen(st->wold)));
}

/*
 * uid_map of a child in a new user namespace, more extents than the
 * five kept inline: kernel/user_namespace.c:map_write() copies the text
 * (memdup_user_nul(), line 944), insert_extent() allocates the array of
 * forward extents (line 793) and sort_idmaps() the reverse one (line
 * 862), each ENOMEM when it cannot (linux 6.12).
 */
static const int idmap_errnos[] = { ENOMEM, 0 };

#define IDMAP_EXTENTS 7
#define IDMAP_BASE 100000

/*
 * The child's /proc/PID/@map (uid_map, gid_map), its path kept in wold, to
 * be written IDMAP_EXTENTS extents.
 */
static void idmap_open(struct __test_metadata *_metadata, struct task_state *st,
		       const char *map)
{
	char text[256] = "";
	int i;

	for (i = 0; i < IDMAP_EXTENTS; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "%d %d 10\n", i * 20, IDMAP_BASE + i * 20);
	snprintf(st->wold, sizeof(st->wold), "/proc/%d/%s", st->pid, map);
	wfd_open(_metadata, st, st->wold, text);
}

static void uid_map_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;

	stopped_child(_metadata, st, CLONE_NEWUSER);
	idmap_open(_metadata, st, "uid_map");
}

/*
 * gid_map, after "deny" is written to the child's setgroups (unarmed), as
 * an unprivileged writer must: "deny" comes before the gid_map and is for
 * good (kernel/user_namespace.c:1259-1271, linux 6.12).
 */
static void gid_map_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;
	char path[64];

	stopped_child(_metadata, st, CLONE_NEWUSER);
	snprintf(path, sizeof(path), "/proc/%d/setgroups", st->pid);
	ASSERT_EQ(0, write_file(path, "deny"));
	idmap_open(_metadata, st, "gid_map");
}

/*
 * A success: the child's map reads back every extent written. A failure:
 * it is empty, and can still be written: map_write() takes one write only
 * (kernel/user_namespace.c:973, EPERM once a map has extents).
 */
static bool uid_map_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	unsigned int first, lower, count;
	char line[128];
	int n = 0, bad = 0, again = 0;
	FILE *f;

	f = fopen(st->wold, "re");
	if (!f) {
		snprintf(why, size, "%s: %s", st->wold, strerror(errno));
		return false;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%u %u %u", &first, &lower, &count) != 3 ||
		    first != n * 20 || lower != IDMAP_BASE + n * 20 ||
		    count != 10)
			bad++;
		n++;
	}
	fclose(f);
	if (ret < 0 && !n)
		again = write_file(st->wold, st->wval);
	if (bad || again || n != (ret >= 0 ? IDMAP_EXTENTS : 0)) {
		snprintf(why, size,
			 "map write %s, %s: %d extents, %d bad; again: %s",
			 ret >= 0 ? "succeeded" : "failed", st->wold, n, bad,
			 strerror(-again));
		return false;
	}
	return true;
}

/*
 * setgroups() of several groups: kernel/groups.c reports the group_info
 * (groups_alloc(), kernel/groups.c:210) and the new credentials
 * (prepare_creds(), kernel/groups.c:142) that cannot be allocated as
 * ENOMEM (linux 6.12).
 */
static const int groups_errnos[] = { ENOMEM, 0 };

/* In ascending order, as getgroups() gives them back (groups_sort()). */
static const gid_t groups_set[] = { 1, 2, 3, 5, 8, 13, 21, 34 };

static void groups_prepare(struct __test_metadata *_metadata, void *arg)
{
	ASSERT_EQ(0, setgroups(0, NULL));
}

static int groups_action(void *arg)
{
	return setgroups(ARRAY_SIZE(groups_set), groups_set) ? -errno : 0;
}

/* A success: all the groups. A failure: none, as prepare left it. */
static bool groups_check(void *arg, int ret, char *why, size_t size)
{
	gid_t got[ARRAY_SIZE(groups_set) + 1];
	int n = getgroups(ARRAY_SIZE(got), got);

	if (ret < 0 && !n)
		return true;
	if (ret >= 0 && n == ARRAY_SIZE(groups_set) &&
	    !memcmp(got, groups_set, sizeof(groups_set)))
		return true;
	snprintf(why, size, "setgroups %s, yet getgroups() gives %d groups",
		 ret >= 0 ? "succeeded" : "failed", n);
	return false;
}

/*
 * keyctl() on keys made unarmed in prepare: KEYCTL_UPDATE copies the new
 * payload (security/keys/keyctl.c:340, ENOMEM) that the user type then
 * copies again (security/keys/user_defined.c:69); KEYCTL_READ allocates
 * the buffer it reads into (keyctl.c:894-896); KEYCTL_LINK adds a slot
 * to the keyring (security/keys/keyring.c:1330-1335, the assoc_array
 * edit, lib/assoc_array.c:1061); KEYCTL_RESTRICT_KEYRING allocates the
 * restriction (keyring.c:995). Each is ENOMEM (linux 6.12).
 */
static const int keyctl_errnos[] = { ENOMEM, 0 };

/* A user key KEY_DESC with key_payload() in the new session keyring. */
static void key_user_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;
	char payload[KEY_LEN];

	key_prepare(_metadata, arg);
	key_payload(payload);
	st->key_a = syscall(__NR_add_key, "user", KEY_DESC, payload, KEY_LEN,
			    KEY_SPEC_SESSION_KEYRING);
	ASSERT_LT(0, st->key_a);
	/* What a read of the keyring must fill. */
	memset(st->key_buf, 0, sizeof(st->key_buf));
}

static int key_update_action(void *arg)
{
	struct task_state *st = arg;
	char payload[KEY_LEN];

	memset(payload, 0x5a, sizeof(payload));
	return keyctl(KEYCTL_UPDATE, st->key_a, (unsigned long)payload,
		      KEY_LEN) ?
		       -errno :
		       0;
}

/* A success: the key reads the new payload. A failure: the old one. */
static bool key_update_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	char want[KEY_LEN], got[KEY_LEN + 1];
	long len;

	if (ret >= 0)
		memset(want, 0x5a, sizeof(want));
	else
		key_payload(want);
	len = keyctl(KEYCTL_READ, st->key_a, (unsigned long)got, sizeof(got));
	if (len != KEY_LEN || memcmp(got, want, KEY_LEN)) {
		snprintf(why, size, "update %s, yet key %d reads %ld bytes %s",
			 ret >= 0 ? "succeeded" : "failed", st->key_a, len,
			 len == KEY_LEN ? "of the other payload" : "");
		return false;
	}
	return true;
}

/* Besides the user key, a keyring "failnth-dest" in the session keyring. */
static void key_link_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;

	key_user_prepare(_metadata, arg);
	st->key_b = syscall(__NR_add_key, "keyring", "failnth-dest", NULL, 0,
			    KEY_SPEC_SESSION_KEYRING);
	ASSERT_LT(0, st->key_b);
}

static int key_link_action(void *arg)
{
	struct task_state *st = arg;

	return keyctl(KEYCTL_LINK, st->key_a, st->key_b, 0) ? -errno : 0;
}

/* The ids keyring @id holds, in @ids: how many, or -1. */
static long keyring_ids(int id, int32_t *ids, size_t n)
{
	long len =
		keyctl(KEYCTL_READ, id, (unsigned long)ids, n * sizeof(*ids));

	return len < 0 ? -1 : len / (long)sizeof(*ids);
}

/* A success: the keyring holds the key, and only it. A failure: nothing. */
static bool key_link_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	int32_t ids[4] = {};
	long n = keyring_ids(st->key_b, ids, ARRAY_SIZE(ids));

	if (ret >= 0 ? n == 1 && ids[0] == st->key_a : n == 0)
		return true;
	snprintf(why, size, "link %s, yet keyring %d holds %ld keys",
		 ret >= 0 ? "succeeded" : "failed", st->key_b, n);
	return false;
}

/*
 * add_key() of a user key of nearly the largest payload (32767 bytes,
 * security/keys/user_defined.c:64): sys_add_key() copies it with
 * kvmalloc() (security/keys/keyctl.c:116), which falls back to vmalloc()
 * when kmalloc() fails, and user_preparse() allocates the payload in one
 * piece (user_defined.c:69); each ENOMEM (linux 6.12).
 */
#define BIG_KEY_LEN 32000

static char big_key[BIG_KEY_LEN], big_key_got[BIG_KEY_LEN + 1];

static int big_key_action(void *arg)
{
	long ret = syscall(__NR_add_key, "user", KEY_DESC, big_key, BIG_KEY_LEN,
			   KEY_SPEC_SESSION_KEYRING);

	return ret < 0 ? -errno : (int)ret;
}

/* A success: the key reads back whole. */
static bool big_key_check(void *arg, int ret, char *why, size_t size)
{
	return user_key_is(ret, big_key, BIG_KEY_LEN, big_key_got,
			   sizeof(big_key_got), why, size);
}

/*
 * KEYCTL_CHOWN of the user key to a uid no key had yet (key_b): the key
 * user of the new owner is allocated (security/keys/key.c:
 * key_user_lookup(), ENOMEM at security/keys/keyctl.c:1003-1004, linux
 * 6.12).
 */
#define KEY_UID_BASE 40000

static void key_chown_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;

	key_user_prepare(_metadata, arg);
	st->key_b = KEY_UID_BASE + ++st->key_seq;
}

static int key_chown_action(void *arg)
{
	struct task_state *st = arg;

	return keyctl(KEYCTL_CHOWN, st->key_a, st->key_b, (unsigned long)-1) ?
		       -errno :
		       0;
}

/* A success: the key's owner is the new uid. A failure: still root. */
static bool key_chown_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	char desc[128] = "";
	int uid = -1, want = ret >= 0 ? st->key_b : 0;

	/* "user;uid;gid;perm;desc" */
	if (keyctl(KEYCTL_DESCRIBE, st->key_a, (unsigned long)desc,
		   sizeof(desc)) < 0 ||
	    sscanf(desc, "user;%d;", &uid) != 1 || uid != want) {
		snprintf(why, size, "chown %s, yet key %d is \"%s\"",
			 ret >= 0 ? "succeeded" : "failed", st->key_a, desc);
		return false;
	}
	return true;
}

/*
 * KEYCTL_UNLINK of the user key from the keyring that links it, and
 * KEYCTL_CLEAR of that keyring: each edit of the keyring's assoc_array is
 * allocated first (lib/assoc_array.c:1171-1173, assoc_array_delete(); and
 * 1363-1365, assoc_array_clear()), ENOMEM, returned by
 * security/keys/keyring.c:1507-1510 and 1673-1675 (linux 6.12).
 */
static void key_linked_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;

	key_link_prepare(_metadata, arg);
	ASSERT_EQ(0, key_link_action(arg))
	{
		TH_LOG("linking key %d: %s", st->key_a, strerror(errno));
	}
}

static int key_unlink_action(void *arg)
{
	struct task_state *st = arg;

	return keyctl(KEYCTL_UNLINK, st->key_a, st->key_b, 0) ? -errno : 0;
}

static int key_clear_action(void *arg)
{
	struct task_state *st = arg;

	return keyctl(KEYCTL_CLEAR, st->key_b, 0, 0) ? -errno : 0;
}

/* A success: the keyring is empty. A failure: it still links the key. */
static bool key_unlinked_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	int32_t ids[4] = {};
	long n = keyring_ids(st->key_b, ids, ARRAY_SIZE(ids));

	if (ret >= 0 ? n == 0 : n == 1 && ids[0] == st->key_a)
		return true;
	snprintf(why, size, "removal %s, yet keyring %d holds %ld keys",
		 ret >= 0 ? "succeeded" : "failed", st->key_b, n);
	return false;
}

/* KEYCTL_READ of the session keyring, which holds the user key alone. */
static int key_read_action(void *arg)
{
	struct task_state *st = arg;
	long len = keyctl(KEYCTL_READ, KEY_SPEC_SESSION_KEYRING,
			  (unsigned long)st->key_buf, sizeof(st->key_buf));

	return len < 0 ? -errno : (int)len;
}

/* A success: the key's id, all of it; the buffer is clear before. */
static bool key_read_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	int32_t id;

	if (ret < 0)
		return true;
	memcpy(&id, st->key_buf, sizeof(id));
	if (ret != sizeof(id) || id != st->key_a) {
		snprintf(why, size, "the keyring reads %d bytes, id %d, not %d",
			 ret, id, st->key_a);
		return false;
	}
	return true;
}

/* KEYCTL_RESTRICT_KEYRING with no type: no link is allowed any more. */
static int key_restrict_action(void *arg)
{
	struct task_state *st = arg;

	return keyctl(KEYCTL_RESTRICT_KEYRING, st->key_b, 0, 0) ? -errno : 0;
}

/*
 * A success: linking the user key into the keyring fails with EPERM
 * (restrict_link_reject()). A failure: it works, and is undone.
 */
static bool key_restrict_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	int err = keyctl(KEYCTL_LINK, st->key_a, st->key_b, 0) ? errno : 0;

	if (!err)
		keyctl(KEYCTL_UNLINK, st->key_a, st->key_b, 0);
	if (ret >= 0 ? err == EPERM : !err)
		return true;
	snprintf(why, size, "restriction %s, yet a link gives %s",
		 ret >= 0 ? "succeeded" : "failed",
		 err ? strerror(err) : "success");
	return false;
}

/*
 * setresuid() in a child, to a uid no process has: kernel/sys.c:
 * __sys_setresuid() reports new credentials that cannot be allocated as
 * ENOMEM (kernel/sys.c:717-719), and the user_struct (set_user(),
 * kernel/sys.c:495-497) and ucounts (set_cred_ucounts(),
 * kernel/cred.c:595) of the new uid as EAGAIN (linux 6.12).
 */
static const int setuid_errnos[] = { ENOMEM, EAGAIN, 0 };

#define SETUID_UID 4242

static int setresuid_action(void *arg)
{
	return setresuid(SETUID_UID, SETUID_UID, SETUID_UID) ? -errno : 0;
}

/* A success: every uid the new one. A failure: root's, all of them. */
static bool setresuid_check(void *arg, int ret, char *why, size_t size)
{
	uid_t r = -1, e = -1, s = -1, want = ret >= 0 ? SETUID_UID : 0;

	if (getresuid(&r, &e, &s) || r != want || e != want || s != want) {
		snprintf(why, size, "setresuid %s, yet uids %d %d %d",
			 ret >= 0 ? "succeeded" : "failed", r, e, s);
		return false;
	}
	return true;
}

/*
 * capset() in a child, dropping CAP_SYS_ADMIN: kernel/capability.c
 * reports new credentials that cannot be allocated as ENOMEM
 * (kernel/capability.c:251-253, linux 6.12).
 */
static const int capset_errnos[] = { ENOMEM, 0 };

/* The capability sets of this task: 0, or -errno. */
static int caps_get(struct __user_cap_data_struct *data)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};

	return syscall(SYS_capget, &hdr, data) ? -errno : 0;
}

static int capset_action(void *arg)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	int i;

	if (caps_get(data))
		return -EIO;
	for (i = 0; i < 2; i++)
		data[i].effective = data[i].permitted;
	data[0].effective &= ~(1U << CAP_SYS_ADMIN);
	data[0].permitted &= ~(1U << CAP_SYS_ADMIN);
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

/* A success: CAP_SYS_ADMIN is gone. A failure: it is still there. */
static bool capset_check(void *arg, int ret, char *why, size_t size)
{
	struct __user_cap_data_struct data[2];
	bool admin;

	if (caps_get(data)) {
		snprintf(why, size, "capget: %s", strerror(errno));
		return false;
	}
	admin = data[0].effective & data[0].permitted & (1U << CAP_SYS_ADMIN);
	if (ret >= 0 ? !admin : admin)
		return true;
	snprintf(why, size, "capset %s, yet CAP_SYS_ADMIN is %s",
		 ret >= 0 ? "succeeded" : "failed", admin ? "there" : "gone");
	return false;
}

/*
 * setns() through a pidfd of the parent, from a child in new namespaces
 * of its own: kernel/nsproxy.c:prepare_nsset() reports an nsproxy that
 * cannot be allocated as ENOMEM (kernel/nsproxy.c:76, 360, linux 6.12);
 * the switch is all or nothing.
 */
#define SETNS_FLAGS (CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET)
static const char *const setns_names[] = { "uts", "ipc", "net" };

static int setns_prepare(void *arg)
{
	struct task_state *st = arg;
	char path[64];
	struct stat sb;
	int i;

	for (i = 0; i < ARRAY_SIZE(setns_names); i++) {
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", getppid(),
			 setns_names[i]);
		if (stat(path, &sb))
			return -errno;
		st->ns_parent[i] = sb.st_ino;
	}
	st->pidfd = syscall(SYS_pidfd_open, getppid(), 0);
	if (st->pidfd < 0)
		return -errno;
	return unshare(SETNS_FLAGS) ? -errno : 0;
}

static int setns_action(void *arg)
{
	struct task_state *st = arg;

	return setns(st->pidfd, SETNS_FLAGS) ? -errno : 0;
}

/*
 * A success: every namespace is the parent's. A failure: none is (each
 * still the child's own).
 */
static bool setns_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	bool moved = ret >= 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(setns_names); i++) {
		bool same = ns_ino(setns_names[i]) == st->ns_parent[i];

		if (same == moved)
			continue;
		snprintf(why, size, "setns %s, yet the %s namespace is %s",
			 ret >= 0 ? "succeeded" : "failed", setns_names[i],
			 same ? "the parent's" : "its own");
		return false;
	}
	return true;
}

/*
 * pidfd_getfd() of the parent's file, in a child whose fd table is full:
 * its BITS_PER_LONG inline slots all taken (fs/file.c, files->fdtab), so
 * that receive_fd() (fs/file.c:1300) must grow the table for the new fd.
 * fs/file.c:alloc_fdtable() reports the table, its fd array or its
 * bitmaps that cannot be allocated as ENOMEM (fs/file.c:174, through
 * expand_fdtable() and expand_files()); pidfd_getfd() allocates nothing
 * else (kernel/pid.c:709-727, linux 6.12).
 */
static const int getfd_errnos[] = { ENOMEM, 0 };

#define GETFD_SLOTS ((int)(8 * sizeof(long)))

/*
 * The parent's file, opened by the setup in wfd, is the child's wfd too.
 * The child takes every free slot below GETFD_SLOTS.
 */
static int getfd_prepare(void *arg)
{
	struct task_state *st = arg;
	int fd;

	st->pidfd = syscall(SYS_pidfd_open, getppid(), 0);
	if (st->pidfd < 0)
		return -errno;
	do
		fd = fcntl(st->pidfd, F_DUPFD_CLOEXEC, 0);
	while (fd >= 0 && fd < GETFD_SLOTS - 1);
	return fd == GETFD_SLOTS - 1 ? 0 : -EMFILE;
}

static int getfd_action(void *arg)
{
	struct task_state *st = arg;
	int fd = syscall(SYS_pidfd_getfd, st->pidfd, st->wfd, 0);

	return fd < 0 ? -errno : fd;
}

/*
 * A success: the new fd, the first beyond the inline slots, is the
 * parent's file itself, whose offset it moves. A failure: no fd there.
 */
static bool getfd_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	off_t mark = getpid();

	if (ret < 0 && fcntl(GETFD_SLOTS, F_GETFD) < 0 && errno == EBADF)
		return true;
	if (ret == GETFD_SLOTS && lseek(ret, mark, SEEK_SET) == mark &&
	    lseek(st->wfd, 0, SEEK_CUR) == mark)
		return true;
	snprintf(why, size,
		 "pidfd_getfd gave %d; fd %d: %s, the parent's file at %ld",
		 ret, GETFD_SLOTS,
		 fcntl(GETFD_SLOTS, F_GETFD) < 0 ? "none" : "open",
		 (long)lseek(st->wfd, 0, SEEK_CUR));
	return false;
}

/*
 * pidfd_send_signal() of a real-time signal with a siginfo (SI_QUEUE) to
 * a stopped child that blocks it: kernel/signal.c:__send_signal_locked()
 * queues it in a sigqueue it allocates (kernel/signal.c:1118); when that
 * fails, a real-time signal sent with a siginfo of its sender's is not
 * sent at all: EAGAIN, "Queue overflow, abort" (kernel/signal.c:1149-1156,
 * linux 6.12).
 */
static const int sigsend_errnos[] = { EAGAIN, 0 };

#define SIGSEND_SIG (SIGRTMIN + 1)

static void sigsend_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;
	sigset_t set;

	/* Blocked, it stays pending: not fatal to the stopped child. */
	sigemptyset(&set);
	sigaddset(&set, SIGSEND_SIG);
	ASSERT_EQ(0, sigprocmask(SIG_BLOCK, &set, NULL));
	stopped_child(_metadata, st, 0);
	st->pidfd = syscall(SYS_pidfd_open, st->pid, 0);
	ASSERT_LE(0, st->pidfd);
	st->sigq_before = sigq();
	ASSERT_LE(0, st->sigq_before);
}

static int sigsend_action(void *arg)
{
	siginfo_t info = { .si_signo = SIGSEND_SIG, .si_code = SI_QUEUE };
	struct task_state *st = arg;

	info.si_value.sival_int = st->pid;
	return syscall(SYS_pidfd_send_signal, st->pidfd, SIGSEND_SIG, &info,
		       0) ?
		       -errno :
		       0;
}

/*
 * A success: the signal is pending in the child, once: its bit in ShdPnd
 * and one sigqueue more in SigQ. A failure: neither.
 */
static bool sigsend_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	long long pnd = status_num(st->pid, "ShdPnd", 16);
	long now = sigq(), want = st->sigq_before + (ret < 0 ? 0 : 1);
	bool bit = pnd >= 0 && (pnd >> (SIGSEND_SIG - 1) & 1), sent = ret >= 0;

	if (pnd >= 0 && now == want && bit == sent)
		return true;
	snprintf(why, size, "signal %s, yet ShdPnd %llx and SigQ %ld, not %ld",
		 ret >= 0 ? "sent" : "not sent", pnd, now, want);
	return false;
}

/*
 * clone3() with CLONE_INTO_CGROUP into CG_SUB, made anew for each point:
 * a dead child's css_set lives on until its task_struct is freed, after
 * an RCU grace period (cgroup_free()), and would be found again by
 * find_css_set(). Besides the points of fork,
 * kernel/cgroup/cgroup.c:cgroup_css_set_fork() reports the inode of a
 * cgroup.procs that cannot be allocated (cgroup_may_write(), lines
 * 5212-5214, for CG_SUB and, line 5236, for the common ancestor) and the
 * css_set of the child in CG_SUB (find_css_set(), with its links) as
 * ENOMEM (kernel/cgroup/cgroup.c:6661-6664, linux 6.12); the rest as
 * fork_errnos.
 */
#define CG_SUB_LINE CG_LINE "/sub"

static void cg_clone_prepare(struct __test_metadata *_metadata, void *arg)
{
	struct task_state *st = arg;

	ASSERT_EQ(0, mkdir(CG_SUB, 0755));
	st->wfd = open(CG_SUB, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, st->wfd);
}

/* Kills and reaps the child, then removes CG_SUB. */
static void cg_clone_cleanup(struct __test_metadata *_metadata, void *arg,
			     int ret)
{
	child_wfd_cleanup(_metadata, arg, ret);
	ASSERT_EQ(0, rmdir(CG_SUB))
	{
		TH_LOG("removing %s: %s", CG_SUB, strerror(errno));
	}
}

/* The child waits in CG_SUB for the cleanup to kill it. */
static int cg_clone_action(void *arg)
{
	struct task_state *st = arg;
	struct clone_args args = {
		.flags = CLONE_INTO_CGROUP,
		.exit_signal = SIGCHLD,
		.cgroup = st->wfd,
	};
	pid_t parent = getpid();
	long pid = syscall(SYS_clone3, &args, sizeof(args));

	if (pid < 0)
		return -errno;
	if (!pid) {
		bind_to_parent(parent);
		pause();
		_exit(0);
	}
	st->pid = pid;
	return 0;
}

/* A success: the child runs in CG_SUB. A failure: there is no child. */
static bool cg_clone_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	char now[256] = "";

	if (ret < 0)
		return failnth_no_child(why, size);
	if (st->pid > 0 && cg_of(st->pid, now, sizeof(now)) > 0 &&
	    !strcmp(now, CG_SUB_LINE))
		return true;
	snprintf(why, size, "clone3 succeeded, yet child %d is in \"%s\"",
		 st->pid, now);
	return false;
}

/*
 * setgroups() of GROUPS_MANY groups, in a child as it is for good: the
 * errnos of groups_errnos. A child's groups are its parent's; it keeps
 * their line of /proc/self/status in wold.
 */
#define GROUPS_MANY 40
#define GROUPS_FIRST 100

static int groups_many_prepare(void *arg)
{
	struct task_state *st = arg;

	return status_line(0, "Groups", st->wold, sizeof(st->wold));
}

static int groups_many_action(void *arg)
{
	gid_t gids[GROUPS_MANY];
	int i;

	for (i = 0; i < GROUPS_MANY; i++)
		gids[i] = GROUPS_FIRST + i;
	return setgroups(GROUPS_MANY, gids) ? -errno : 0;
}

/*
 * A success: /proc/self/status lists every group, in order. A failure:
 * it lists the groups of before.
 */
static bool groups_many_check(void *arg, int ret, char *why, size_t size)
{
	struct task_state *st = arg;
	char line[256] = "", *at = line, *end;
	int n = 0;

	status_line(0, "Groups", line, sizeof(line));
	if (ret < 0 && !strcmp(line, st->wold))
		return true;
	while (ret >= 0 && strtoul(at, &end, 10) == GROUPS_FIRST + n &&
	       end != at) {
		at = end;
		n++;
	}
	if (ret >= 0 && n == GROUPS_MANY && !strcmp(at, " "))
		return true;
	snprintf(why, size, "setgroups %s, yet Groups: \"%s\"",
		 ret >= 0 ? "succeeded" : "failed", line);
	return false;
}

FIXTURE(task)
{
	struct task_state ctx;
	bool mnt_base;
	/* Room for overlay_open_by_handle's handle. */
	uint64_t ovl_fh_buf[(sizeof(struct file_handle) + MAX_HANDLE_SZ) / 8 +
			    1];
};

FIXTURE_VARIANT(task)
{
	const struct failnth_scenario *op;
	/* unshare: the flag and its /proc/self/ns entry. */
	int ns_flag;
	const char *ns_name;
	/*
	 * mount: the new filesystem's magic, and a name its root shows; a
	 * tmpfs's options, whether they turn user quotas on.
	 */
	long mnt_magic;
	const char *mnt_probe;
	const char *mnt_data;
	bool mnt_quota;
};

FAILNTH_VARIANT(task, fork, .allowed = fork_errnos, .success_unseen = REAPED,
		.action = fork_action, .check = fork_check,
		.cleanup = task_cleanup);

FAILNTH_VARIANT(task, vfork, .allowed = fork_errnos, .success_unseen = REAPED,
		.action = vfork_action, .check = fork_check,
		.cleanup = task_cleanup);

FAILNTH_VARIANT(task, clone3_pidfd, .allowed = clone3_errnos,
		.action = clone3_action, .check = clone3_check,
		.cleanup = task_cleanup);

FAILNTH_VARIANT(task, execve, .allowed = exec_errnos, .action = exec_action,
		.check = exec_check, .in_child = true, .traced_exec = true,
		.exec_code = EXEC_CODE, .fates = exec_fates);

/* unshare(@flag) in a child; @ns: its name in /proc/self/ns. */
#define UNSHARE_VARIANT(variant, flag, ns, errnos)                            \
	FAILNTH_VARIANT_MORE(task, variant, (.ns_flag = flag, .ns_name = ns), \
			     .allowed = errnos, .action = unshare_action,     \
			     .check = unshare_check, .in_child = true,        \
			     .child_prepare = unshare_prepare)

UNSHARE_VARIANT(unshare_mnt, CLONE_NEWNS, "mnt", ns_errnos);
UNSHARE_VARIANT(unshare_uts, CLONE_NEWUTS, "uts", ns_errnos);
UNSHARE_VARIANT(unshare_ipc, CLONE_NEWIPC, "ipc", ns_errnos);
UNSHARE_VARIANT(unshare_net, CLONE_NEWNET, "net", net_errnos);
UNSHARE_VARIANT(unshare_pid, CLONE_NEWPID, "pid_for_children", ns_errnos);
UNSHARE_VARIANT(unshare_user, CLONE_NEWUSER, "user", user_errnos);
UNSHARE_VARIANT(unshare_cgroup, CLONE_NEWCGROUP, "cgroup", ns_errnos);
UNSHARE_VARIANT(unshare_time, CLONE_NEWTIME, "time_for_children", ns_errnos);

FAILNTH_VARIANT(task, setresuid, .allowed = setuid_errnos,
		.action = setresuid_action, .check = setresuid_check,
		.in_child = true);

FAILNTH_VARIANT(task, capset, .allowed = capset_errnos, .action = capset_action,
		.check = capset_check, .in_child = true);

FAILNTH_VARIANT(task, setns_pidfd, .allowed = ns_errnos, .action = setns_action,
		.check = setns_check, .in_child = true,
		.child_prepare = setns_prepare);

FAILNTH_VARIANT(task, seccomp_filter, .allowed = seccomp_errnos,
		.action = seccomp_action, .check = seccomp_check,
		.in_child = true, .child_prepare = seccomp_prepare);

FAILNTH_VARIANT(task, pidfd_open, .allowed = pidfd_errnos,
		.prepare = pidfd_prepare, .action = pidfd_action,
		.check = pidfd_check, .cleanup = pidfd_cleanup);

FAILNTH_VARIANT(task, timer_create, .allowed = timer_errnos,
		.prepare = timer_prepare, .action = timer_action,
		.check = timer_check, .cleanup = timer_cleanup);

FAILNTH_VARIANT(task, cgroup_mkdir, .allowed = cgroup_errnos,
		.action = cgroup_action, .check = cgroup_check,
		.cleanup = cgroup_cleanup);

FAILNTH_VARIANT(task, cgroup_attach, .allowed = cg_write_errnos,
		.prepare = cg_attach_prepare, .action = wfd_action,
		.check = cg_attach_check, .cleanup = child_wfd_cleanup);

FAILNTH_VARIANT(task, cgroup_open_procs, .allowed = cg_write_errnos,
		.prepare = cg_open_prepare, .action = cg_open_action,
		.check = cg_open_check, .cleanup = child_wfd_cleanup);

FAILNTH_VARIANT(task, cgroup_memory_stat, .allowed = cg_write_errnos,
		.success_unseen = READ_QUERY, .prepare = cg_stat_prepare,
		.action = peer_read_action, .check = cg_stat_check,
		.cleanup = wfd_cleanup);

FAILNTH_VARIANT(task, cgroup_subtree_memory, .allowed = cg_write_errnos,
		.prepare = cg_subtree_prepare, .action = wfd_action,
		.check = cg_subtree_check, .cleanup = cg_subtree_cleanup);

FAILNTH_VARIANT(task, cgroup_freeze, .allowed = cg_write_errnos,
		.prepare = cg_freeze_prepare, .action = wfd_action,
		.check = cg_freeze_check, .cleanup = cg_freeze_cleanup);

FAILNTH_VARIANT(task, cgroup_kill, .allowed = cg_write_errnos,
		.prepare = cg_kill_prepare, .action = wfd_action,
		.check = cg_kill_check, .cleanup = child_wfd_cleanup);

FAILNTH_VARIANT(task, cgroup_psi_trigger, .allowed = psi_errnos,
		.prepare = psi_prepare, .action = wfd_action,
		.check = psi_check, .cleanup = wfd_cleanup);

FAILNTH_VARIANT(task, sysctl_hostname, .allowed = sysctl_errnos,
		.prepare = hostname_prepare, .action = wfd_action,
		.check = hostname_check, .cleanup = hostname_cleanup);

FAILNTH_VARIANT(task, uid_map, .allowed = idmap_errnos,
		.prepare = uid_map_prepare, .action = wfd_action,
		.check = uid_map_check, .cleanup = child_wfd_cleanup);

FAILNTH_VARIANT(task, gid_map, .allowed = idmap_errnos,
		.prepare = gid_map_prepare, .action = wfd_action,
		.check = uid_map_check, .cleanup = child_wfd_cleanup);

FAILNTH_VARIANT(task, setgroups, .allowed = groups_errnos,
		.prepare = groups_prepare, .action = groups_action,
		.check = groups_check);

FAILNTH_VARIANT(task, pidfd_getfd, .allowed = getfd_errnos,
		.action = getfd_action, .check = getfd_check, .in_child = true,
		.child_prepare = getfd_prepare);

FAILNTH_VARIANT(task, pidfd_send_signal, .allowed = sigsend_errnos,
		.prepare = sigsend_prepare, .action = sigsend_action,
		.check = sigsend_check, .cleanup = pidfd_cleanup);

FAILNTH_VARIANT(task, clone3_into_cgroup, .allowed = fork_errnos,
		.prepare = cg_clone_prepare, .action = cg_clone_action,
		.check = cg_clone_check, .cleanup = cg_clone_cleanup);

FAILNTH_VARIANT(task, setgroups_many, .allowed = groups_errnos,
		.action = groups_many_action, .check = groups_many_check,
		.in_child = true, .child_prepare = groups_many_prepare);

FAILNTH_VARIANT(task, keyctl_update, .allowed = keyctl_errnos,
		.prepare = key_user_prepare, .action = key_update_action,
		.check = key_update_check);

FAILNTH_VARIANT(task, keyctl_link, .allowed = keyctl_errnos,
		.prepare = key_link_prepare, .action = key_link_action,
		.check = key_link_check);

FAILNTH_VARIANT(task, keyctl_read_keyring, .allowed = keyctl_errnos,
		.success_unseen = READ_QUERY, .prepare = key_user_prepare,
		.action = key_read_action, .check = key_read_check);

FAILNTH_VARIANT(task, keyctl_restrict, .allowed = keyctl_errnos,
		.prepare = key_link_prepare, .action = key_restrict_action,
		.check = key_restrict_check);

FAILNTH_VARIANT(task, peer_vm_writev, .allowed = peer_vm_errnos,
		.full = PEER_LEN, .prepare = peer_vm_prepare,
		.action = peer_vm_action, .check = peer_check,
		.cleanup = child_wfd_cleanup);

FAILNTH_VARIANT(task, peer_mem_write, .allowed = peer_mem_errnos,
		.full = PEER_LEN, .prepare = peer_mem_prepare,
		.action = peer_mem_action, .check = peer_check,
		.cleanup = child_wfd_cleanup);

FAILNTH_VARIANT(task, peer_environ_read, .allowed = peer_read_errnos,
		.success_unseen = READ_QUERY, .prepare = peer_environ_prepare,
		.action = peer_read_action, .check = peer_environ_check,
		.cleanup = child_wfd_cleanup);

FAILNTH_VARIANT(task, peer_pagemap_read, .allowed = peer_read_errnos,
		.success_unseen = READ_QUERY, .full = PAGEMAP_LEN,
		.prepare = peer_pagemap_prepare, .action = peer_pagemap_action,
		.check = peer_pagemap_check, .cleanup = child_wfd_cleanup);

FAILNTH_VARIANT(task, peer_stack_read, .allowed = peer_read_errnos,
		.success_unseen = READ_QUERY, .prepare = peer_stack_prepare,
		.action = peer_read_action, .check = peer_stack_check,
		.cleanup = child_wfd_cleanup);

FAILNTH_VARIANT(task, peer_map_files, .allowed = peer_read_errnos,
		.success_unseen = READ_QUERY, .prepare = peer_map_files_prepare,
		.action = peer_map_files_action, .check = peer_map_files_check,
		.cleanup = child_wfd_cleanup);

FAILNTH_VARIANT(task, peer_readlink_exe, .allowed = peer_read_errnos,
		.success_unseen = READ_QUERY, .prepare = peer_readlink_prepare,
		.action = peer_readlink_action, .check = peer_readlink_check,
		.cleanup = child_wfd_cleanup);

FAILNTH_VARIANT(task, keyctl_chown, .allowed = keyctl_errnos,
		.prepare = key_chown_prepare, .action = key_chown_action,
		.check = key_chown_check);

FAILNTH_VARIANT(task, peer_smaps_rollup, .allowed = peer_read_errnos,
		.prepare = peer_rollup_prepare, .action = peer_rollup_action,
		.check = peer_rollup_check, .cleanup = child_wfd_cleanup);

FAILNTH_VARIANT(task, keyctl_unlink, .allowed = keyctl_errnos,
		.prepare = key_linked_prepare, .action = key_unlink_action,
		.check = key_unlinked_check);

FAILNTH_VARIANT(task, keyctl_clear, .allowed = keyctl_errnos,
		.prepare = key_linked_prepare, .action = key_clear_action,
		.check = key_unlinked_check);

FAILNTH_VARIANT(task, add_key_big, .allowed = keyctl_errnos,
		.prepare = key_prepare, .action = big_key_action,
		.check = big_key_check, .cleanup = add_key_cleanup);

FAILNTH_VARIANT(task, add_key, .allowed = key_errnos, .prepare = key_prepare,
		.action = add_key_action, .check = add_key_check,
		.cleanup = add_key_cleanup);

FAILNTH_VARIANT(task, keyring_join, .allowed = key_errnos,
		.prepare = key_prepare, .action = keyring_action,
		.check = keyring_check);

FAILNTH_VARIANT_MORE(task, mount_tmpfs,
		     (.mnt_magic = TMPFS_MAGIC, .mnt_data = "size=1m"),
		     .allowed = mount_errnos, .action = mount_action,
		     .check = mount_check, .cleanup = mount_cleanup);

/*
 * A tmpfs with user and group quotas: shmem_enable_quotas() loads both
 * (fs/quota/dquot.c, mm/shmem_quota.c); a success must report the user
 * quota on.
 */
FAILNTH_VARIANT_MORE(task, mount_tmpfs_quota,
		     (.mnt_magic = TMPFS_MAGIC,
		      .mnt_data = "size=1m,usrquota,grpquota",
		      .mnt_quota = true),
		     .allowed = mount_errnos, .action = mount_action,
		     .check = mount_check, .cleanup = mount_cleanup);

FAILNTH_VARIANT_MORE(task, mount_devpts,
		     (.mnt_magic = DEVPTS_SUPER_MAGIC, .mnt_probe = "ptmx"),
		     .allowed = pseudo_mount_errnos, .action = devpts_action,
		     .check = mount_check, .cleanup = mount_cleanup);

FAILNTH_VARIANT_MORE(task, mount_mqueue,
		     (.mnt_magic = MQUEUE_MAGIC, .mnt_probe = MQ_PROBE),
		     .allowed = pseudo_mount_errnos,
		     .action = mqueue_mount_action, .check = mount_check,
		     .cleanup = mount_cleanup);

FAILNTH_VARIANT(task, mount_fuse, .allowed = pseudo_mount_errnos,
		.prepare = fuse_prepare, .action = fuse_action,
		.check = fuse_check, .cleanup = fuse_cleanup);

FAILNTH_VARIANT_MORE(task, fsmount_tmpfs, (.mnt_magic = TMPFS_MAGIC),
		     .allowed = mount_errnos, .action = fsmount_action,
		     .check = mount_check, .cleanup = mount_cleanup);

FAILNTH_VARIANT(task, mount_bind, .allowed = mt_errnos, .action = bind_action,
		.check = bind_check, .cleanup = mt_dir_cleanup,
		.settled = mt_settled);

FAILNTH_VARIANT(task, mount_rbind, .allowed = mt_errnos, .action = rbind_action,
		.check = rbind_check, .cleanup = mt_dir_cleanup,
		.settled = mt_settled);

FAILNTH_VARIANT(task, mount_bind_shared, .allowed = mt_errnos,
		.action = bind_shared_action, .check = bind_shared_check,
		.cleanup = mt_peers_cleanup, .settled = mt_settled);

FAILNTH_VARIANT(task, umount_shared, .allowed = mt_errnos,
		.prepare = umount_shared_prepare,
		.action = umount_shared_action, .check = umount_shared_check,
		.cleanup = mt_peers_cleanup, .settled = mt_settled);

FAILNTH_VARIANT(task, mount_move_shared, .allowed = mt_errnos,
		.prepare = move_prepare, .action = move_action,
		.check = move_check, .cleanup = mt_peers_cleanup,
		.settled = mt_settled);

FAILNTH_VARIANT(task, open_tree_move, .allowed = mt_errnos,
		.action = open_tree_action, .check = rbind_check,
		.cleanup = mt_dir_cleanup, .settled = mt_settled);

FAILNTH_VARIANT(task, mount_setattr_tree, .allowed = mt_errnos,
		.action = setattr_action, .check = setattr_check,
		.cleanup = mt_src_cleanup, .settled = mt_settled);

FAILNTH_VARIANT(task, mount_setattr_idmap, .allowed = mt_errnos,
		.prepare = idmap_prepare, .action = idmap_action,
		.check = idmap_check, .cleanup = idmap_cleanup,
		.settled = mt_settled);

FAILNTH_VARIANT(task, statmount, .allowed = mt_errnos,
		.prepare = statmount_prepare, .action = statmount_action,
		.check = statmount_check, .settled = mt_settled);

FAILNTH_VARIANT(task, pivot_root, .allowed = mt_errnos, .action = pivot_action,
		.check = pivot_check, .in_child = true,
		.child_prepare = pivot_prepare);

FAILNTH_VARIANT(task, mount_overlay, .allowed = ovl_mount_errnos,
		.prepare = ovl_mount_prepare, .action = ovl_mount_action,
		.check = ovl_mount_check, .cleanup = mount_cleanup);

FAILNTH_VARIANT(task, overlay_copy_up, .allowed = ovl_copy_up_errnos,
		.prepare = ovl_mounted_prepare, .action = ovl_copy_up_action,
		.check = ovl_copy_up_check, .cleanup = ovl_mounted_cleanup);

FAILNTH_VARIANT(task, overlay_setxattr, .allowed = ovl_copy_up_errnos,
		.prepare = ovl_mounted_prepare, .action = ovl_setxattr_action,
		.check = ovl_setxattr_check, .cleanup = ovl_mounted_cleanup);

FAILNTH_VARIANT(task, overlay_rename_dir, .allowed = ovl_rename_errnos,
		.prepare = ovl_rename_prepare, .action = ovl_rename_action,
		.check = ovl_rename_check, .cleanup = ovl_mounted_cleanup);

FAILNTH_VARIANT(task, overlay_lookup_redirect, .allowed = ovl_readdir_errnos,
		.prepare = ovl_redirect_prepare, .action = ovl_redirect_action,
		.check = ovl_redirect_check, .cleanup = ovl_mounted_cleanup);

FAILNTH_VARIANT(task, overlay_lookup_origin, .allowed = ovl_readdir_errnos,
		.prepare = ovl_origin_prepare, .action = ovl_origin_action,
		.check = ovl_origin_check, .cleanup = ovl_mounted_cleanup);

/*
 * getdents64() of an impure upper directory: its entries read from the
 * real directory into a cache of their own (fs/overlayfs/readdir.c:
 * ovl_iterate_real(), ovl_cache_get_impure()), and the copied-up file's
 * inode number taken from its origin.
 */
FAILNTH_VARIANT(task, overlay_readdir_impure, .allowed = ovl_readdir_errnos,
		.prepare = ovl_impure_prepare, .action = ovl_readdir_action,
		.check = ovl_readdir_check, .cleanup = ovl_mounted_cleanup);

FAILNTH_VARIANT(task, overlay_open_by_handle, .allowed = ovl_handle_errnos,
		.prepare = ovl_handle_prepare, .action = ovl_handle_action,
		.check = ovl_handle_check, .cleanup = ovl_mounted_cleanup);

FAILNTH_VARIANT(task, overlay_readdir, .allowed = ovl_readdir_errnos,
		.prepare = ovl_mounted_prepare, .action = ovl_readdir_action,
		.check = ovl_readdir_check, .cleanup = ovl_mounted_cleanup);

/*
 * The mount scenario's base: a private mount namespace with a fresh tmpfs
 * on MNT_BASE holding the mount point, so that nothing is mounted outside
 * and the mounts go away with the test process however it ends.
 */
static void mount_base(struct __test_metadata *_metadata,
		       FIXTURE_DATA(task) * self)
{
	struct stat sb;
	char why[256];
	int ret;

	ret = private_tmpfs(MNT_BASE, "size=1m,mode=0700", why, sizeof(why));
	if (ret > 0)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ret)
	{
		TH_LOG("%s", why);
	}
	self->mnt_base = true;
	ASSERT_EQ(0, mkdir(MNT_DIR, 0700));
	ASSERT_EQ(0, stat(MNT_DIR, &sb));
	self->ctx.mnt_dev = sb.st_dev;
}

/* Whether @op is one of the mount tree scenarios. */
static bool mt_scenario(const struct failnth_scenario *op)
{
	return op->settled == mt_settled || op->action == pivot_action;
}

/* A tmpfs on @path, made first, holding the file MT_MARK. */
static void mt_tmpfs(struct __test_metadata *_metadata, const char *path)
{
	char mark[300];
	int fd;

	ASSERT_EQ(0, mkdir(path, 0755));
	ASSERT_EQ(0, mount("failnth", path, "tmpfs", 0, "size=64k"));
	snprintf(mark, sizeof(mark), "%s/" MT_MARK, path);
	fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, close(fd));
}

/*
 * The mount tree scenarios' base, on the base tmpfs: MT_SRC's tree of
 * three private tmpfs mounts; the shared MT_P1 with MT_SUB, its peer MT_P2
 * and its slave MT_SL; MT_MOVE; then mountinfo's lines under MNT_BASE,
 * which every point must leave as they are.
 */
static void mt_setup(struct __test_metadata *_metadata, struct task_state *st)
{
	char why[256] = "";
	int i;

	mt_tmpfs(_metadata, MT_SRC);
	mt_tmpfs(_metadata, MT_SRC "/a");
	mt_tmpfs(_metadata, MT_SRC "/b");
	for (i = 0; i < ARRAY_SIZE(mt_tree_dirs); i++) {
		char path[256];

		snprintf(path, sizeof(path), MT_SRC "%s", mt_tree_dirs[i]);
		st->mt_src_dev[i] = mt_dev(path);
		ASSERT_NE(0, st->mt_src_dev[i]);
	}
	mt_tmpfs(_metadata, MT_P1);
	ASSERT_EQ(0, mkdir(MT_P1 MT_SUB, 0755));
	ASSERT_EQ(0, mount(NULL, MT_P1, NULL, MS_SHARED, NULL));
	ASSERT_EQ(0, mkdir(MT_P2, 0755));
	ASSERT_EQ(0, mount(MT_P1, MT_P2, NULL, MS_BIND, NULL));
	ASSERT_EQ(0, mkdir(MT_SL, 0755));
	ASSERT_EQ(0, mount(MT_P1, MT_SL, NULL, MS_BIND, NULL));
	ASSERT_EQ(0, mount(NULL, MT_SL, NULL, MS_SLAVE, NULL));
	ASSERT_EQ(0, mkdir(MT_MOVE, 0755));
	ASSERT_TRUE(mt_reread(why, sizeof(why)))
	{
		TH_LOG("%s", why);
	}
	mt_snapshot(st->mt_base, sizeof(st->mt_base));
}

/*
 * mount_setattr_idmap's base: MT_FAR in MT_SRC, and a user namespace with
 * MT_IDMAP_EXTENTS uid and gid extents, made by a child that is then
 * killed: st->mt_userns keeps it. Skips where there are no user
 * namespaces, or tmpfs cannot be idmapped.
 */
static void mt_idmap_setup(struct __test_metadata *_metadata,
			   struct task_state *st)
{
	static const char *const maps[] = { "uid_map", "gid_map" };
	char path[64], map[256] = "";
	int fd, i, err;

	if (!ns_ino("user"))
		SKIP(return, "no user namespace: needs CONFIG_USER_NS");
	fd = open(MT_SRC "/" MT_FAR, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fchown(fd, MT_FAR_ID, MT_FAR_ID));
	ASSERT_EQ(0, close(fd));
	stopped_child(_metadata, st, CLONE_NEWUSER);
	for (i = 0; i < MT_IDMAP_EXTENTS; i++)
		snprintf(map + strlen(map), sizeof(map) - strlen(map),
			 "%d %d 10\n", i * 20, MT_IDMAP_BASE + i * 20);
	for (i = 0; i < ARRAY_SIZE(maps); i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", st->pid, maps[i]);
		ASSERT_EQ(0, write_file(path, map))
		{
			TH_LOG("writing %s", path);
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/user", st->pid);
	st->mt_userns = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, st->mt_userns);
	kill(st->pid, SIGKILL);
	ASSERT_EQ(st->pid, waitpid(st->pid, NULL, 0));
	st->pid = 0;
	/* A probe, unarmed: tmpfs allows idmapped mounts since linux 6.3. */
	idmap_prepare(_metadata, st);
	err = idmap_action(st);
	idmap_cleanup(_metadata, st, err);
	if (err == -EINVAL)
		SKIP(return, "tmpfs cannot be idmapped: needs linux 6.3");
	ASSERT_EQ(0, err);
}

/*
 * The cgroup scenario's base: the cgroup v2 hierarchy, where this process
 * may make a child (it runs as root in the test's guest), and no
 * CG_DIR yet.
 */
static void cgroup_base(struct __test_metadata *_metadata,
			struct task_state *st)
{
	struct statfs sfs;
	char ctl[256] = "";
	int fd;
	ssize_t len;

	if (statfs(CG_ROOT, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC)
		SKIP(return, "no cgroup v2 hierarchy on %s", CG_ROOT);
	if (access(CG_ROOT, W_OK))
		SKIP(return, "%s is not writable: needs root", CG_ROOT);
	ASSERT_NE(0, access(CG_DIR, F_OK))
	{
		TH_LOG("%s is there already: a run before left it", CG_DIR);
	}
	fd = open(CG_ROOT "/cgroup.subtree_control", O_RDONLY | O_CLOEXEC);
	len = fd < 0 ? -1 : read(fd, ctl, sizeof(ctl) - 1);
	if (fd >= 0)
		close(fd);
	ctl[len > 0 ? len : 0] = '\0';
	st->cg_memory = !!strstr(ctl, "memory");
	/* Where the check puts this process back: "0::/PATH" in cgroup v2. */
	fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
	len = fd < 0 ? -1 : read(fd, ctl, sizeof(ctl) - 1);
	if (fd >= 0)
		close(fd);
	ASSERT_LT(3, len);
	ctl[len] = '\0';
	ctl[strcspn(ctl, "\n")] = '\0';
	ASSERT_EQ(0, strncmp(ctl, "0::/", 4));
	snprintf(st->cg_home, sizeof(st->cg_home), "%s%s/cgroup.procs", CG_ROOT,
		 strcmp(ctl + 3, "/") ? ctl + 3 : "");
}

/*
 * The overlay scenarios' layers on the base tmpfs: the lower directory
 * with its file and a directory holding another, an empty upper and work
 * directory. Skips where the kernel
 * has no overlayfs.
 */
static void ovl_base(struct __test_metadata *_metadata)
{
	int fd, i, err;

	for (i = 0; i < OVL_FILE_LEN; i++)
		ovl_data[i] = 'a' + i % 23 + i / 4096;
	ASSERT_EQ(0, mkdir(OVL_LOWER, 0755));
	ASSERT_EQ(0, mkdir(OVL_UPPER, 0755));
	ASSERT_EQ(0, mkdir(OVL_WORK, 0755));
	fd = open(OVL_LOWER "/" OVL_FILE, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(OVL_FILE_LEN, write(fd, ovl_data, OVL_FILE_LEN));
	ASSERT_EQ(0, fsetxattr(fd, OVL_XATTR, OVL_XATTR_VALUE,
			       strlen(OVL_XATTR_VALUE), 0));
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(0, mkdir(OVL_LOWER "/" OVL_DIR, 0755));
	fd = open(OVL_LOWER "/" OVL_DIR "/" OVL_INNER,
		  O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(strlen(OVL_INNER), write(fd, OVL_INNER, strlen(OVL_INNER)));
	ASSERT_EQ(0, close(fd));
	err = ovl_mount_action(NULL);
	if (err == -ENODEV)
		SKIP(return, "no overlayfs: needs CONFIG_OVERLAY_FS");
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, umount(MNT_DIR));
}

/* Whether @op is one of the overlay scenarios. */
static bool ovl_scenario(const struct failnth_scenario *op)
{
	return op->prepare == ovl_mount_prepare ||
	       op->prepare == ovl_mounted_prepare ||
	       op->prepare == ovl_origin_prepare ||
	       op->prepare == ovl_rename_prepare ||
	       op->prepare == ovl_redirect_prepare ||
	       op->prepare == ovl_impure_prepare ||
	       op->prepare == ovl_handle_prepare;
}

/* Whether @op is one of the scenarios in CG_DIR, made by the setup. */
static bool cg_scenario(const struct failnth_scenario *op)
{
	return op->prepare == cg_attach_prepare || op->prepare == psi_prepare ||
	       op->prepare == cg_clone_prepare ||
	       op->prepare == cg_open_prepare ||
	       op->prepare == cg_stat_prepare ||
	       op->prepare == cg_subtree_prepare ||
	       op->prepare == cg_freeze_prepare ||
	       op->prepare == cg_kill_prepare;
}

/* Whether @op is one of the keys scenarios. */
static bool key_scenario(const struct failnth_scenario *op)
{
	return op->prepare == key_prepare || op->prepare == key_user_prepare ||
	       op->prepare == key_link_prepare ||
	       op->prepare == key_linked_prepare ||
	       op->prepare == key_chown_prepare;
}

FIXTURE_SETUP(task)
{
	const char *missing = failnth_missing();
	const struct failnth_scenario *op = variant->op;
	struct sigaction sa = { .sa_handler = SIG_DFL,
				.sa_flags = SA_NOCLDSTOP };
	ssize_t len;

	self->ctx.pidfd = -1;
	self->ctx.wfd = -1;
	for (len = 0; len < BIG_KEY_LEN; len++)
		big_key[len] = (char)(len % 251 + 1);
	memset(peer_new, PEER_NEW, sizeof(peer_new));
	self->ctx.fuse_fd = -1;
	self->ctx.ovl_fd = -1;
	self->ctx.ovl_root = -1;
	self->ctx.mt_userns = -1;
	self->ctx.mt_tree = -1;
	self->ctx.ovl_fh = (struct file_handle *)self->ovl_fh_buf;
	self->ctx.status = -1;
	self->ctx.ns_flag = variant->ns_flag;
	self->ctx.ns_name = variant->ns_name;
	if (missing)
		SKIP(return, "%s", missing);
	if (variant->ns_flag == CLONE_NEWTIME && !ns_ino("time"))
		SKIP(return, "no time namespace: needs CONFIG_TIME_NS");
	if (variant->ns_name && !ns_ino(variant->ns_name)) {
		const char *fmt =
			"no /proc/self/ns/%s: the kernel lacks the namespace";

		SKIP(return, fmt, variant->ns_name);
	}
	/*
	 * No SIGCHLD for a child's ptrace stop: queueing it would be an
	 * allocation counted in the traced child's sweep.
	 */
	ASSERT_EQ(0, sigaction(SIGCHLD, &sa, NULL));
	if (op->traced_exec) {
		len = readlink("/proc/self/exe", self->ctx.exe,
			       sizeof(self->ctx.exe) - 1);
		ASSERT_LT(0, len);
		self->ctx.exe[len] = '\0';
	}
	if (op->action == getfd_action) {
		/* The parent's file a child gets: this program. */
		self->ctx.wfd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, self->ctx.wfd);
	}
	if (op->action == fsmount_action) {
		int fd = fsopen("tmpfs", FSOPEN_CLOEXEC);

		if (fd < 0 && errno == ENOSYS)
			SKIP(return, "no fsopen(): the kernel predates 5.2");
		if (fd >= 0)
			close(fd);
	}
	self->ctx.mnt_magic = variant->mnt_magic;
	self->ctx.mnt_probe = variant->mnt_probe;
	self->ctx.mnt_data = variant->mnt_data;
	self->ctx.mnt_quota = variant->mnt_quota;
	if (op->action == mount_action || op->action == fsmount_action ||
	    op->action == devpts_action || op->action == fuse_action ||
	    op->action == mqueue_mount_action || ovl_scenario(op))
		mount_base(_metadata, self);
	if (mt_scenario(op))
		mount_base(_metadata, self);
	if (mt_scenario(op) && op->action != pivot_action)
		mt_setup(_metadata, &self->ctx);
	if (op->action == idmap_action)
		mt_idmap_setup(_metadata, &self->ctx);
	if (op->action == statmount_action) {
		int err;

		mt_sm_id[0] = mt_unique_id(MT_SRC);
		mt_sm_id[1] = mt_unique_id(MT_SRC "/a");
		err = mt_sm_id[0] && mt_sm_id[1] ? statmount_action(NULL) :
						   -EINVAL;
		if (err)
			SKIP(return, REASON_NO_STATMOUNT, strerror(-err));
	}
	if (ovl_scenario(op))
		ovl_base(_metadata);
	if (variant->mnt_quota) {
		int err = mount("failnth", MNT_DIR, "tmpfs", 0,
				variant->mnt_data) ?
				  errno :
				  0;

		if (err == EINVAL)
			SKIP(return, REASON_NO_TMPFS_QUOTA);
		ASSERT_EQ(0, err);
		ASSERT_EQ(0, umount(MNT_DIR));
	}
	if (op->action == mqueue_mount_action) {
		mqd_t mqd = mq_open("/" MQ_PROBE, O_RDWR | O_CREAT | O_CLOEXEC,
				    0600, NULL);

		if (mqd < 0 && errno == ENOSYS)
			SKIP(return, REASON_NO_MQUEUE);
		ASSERT_LE(0, mqd);
		close(mqd);
	}
	if (op->action == fuse_action) {
		int fd;

		/* Its own node: /dev may be a host's, without one. */
		ASSERT_EQ(0, mknod(FUSE_DEV, S_IFCHR | 0600, makedev(10, 229)));
		fd = open(FUSE_DEV, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			SKIP(return, "no FUSE device: needs CONFIG_FUSE_FS");
		close(fd);
	}
	/* A NULL program: EFAULT where filters exist; nothing installed. */
	if (op->action == seccomp_action &&
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, NULL) &&
	    errno != EFAULT)
		SKIP(return, "no seccomp filters: needs CONFIG_SECCOMP_FILTER");
	if (op->action == cgroup_action || cg_scenario(op))
		cgroup_base(_metadata, &self->ctx);
	if (cg_scenario(op))
		ASSERT_EQ(0, mkdir(CG_DIR, 0755));
	if ((op->prepare == cg_stat_prepare ||
	     op->prepare == cg_subtree_prepare) &&
	    !self->ctx.cg_memory)
		SKIP(return, REASON_NO_MEMCG);
	if (op->prepare == cg_subtree_prepare)
		ASSERT_EQ(0, mkdir(CG_SUB, 0755));
	if (op->prepare == psi_prepare &&
	    access(CG_DIR "/memory.pressure", F_OK))
		SKIP(return, "no pressure files: needs CONFIG_PSI");
	if (op->prepare == hostname_prepare && unshare(CLONE_NEWUTS))
		SKIP(return, "no UTS namespace: needs CONFIG_UTS_NS");
	if ((op->prepare == uid_map_prepare ||
	     op->prepare == gid_map_prepare) &&
	    !ns_ino("user"))
		SKIP(return, "no user namespace: needs CONFIG_USER_NS");
	if (key_scenario(op) &&
	    keyctl(KEYCTL_GET_KEYRING_ID,
		   (unsigned long)KEY_SPEC_SESSION_KEYRING, 1, 0) < 0 &&
	    errno == ENOSYS)
		SKIP(return, "no keys: needs CONFIG_KEYS");
}

FIXTURE_TEARDOWN(task)
{
	/* The sweep restores the knobs itself; this covers an ASSERT. */
	EXPECT_EQ(0, knobs_restore());
	if (self->ctx.mt_tree >= 0)
		close(self->ctx.mt_tree);
	if (self->ctx.mt_userns >= 0)
		close(self->ctx.mt_userns);
	if (self->ctx.wfd >= 0)
		close(self->ctx.wfd);
	if (self->mnt_base) {
		umount2(MNT_DIR, MNT_DETACH);
		EXPECT_EQ(0, umount2(MNT_BASE, MNT_DETACH));
	}
	/* What a point that ended in an ASSERT may have left. */
	if (variant->op->action == cgroup_action || cg_scenario(variant->op)) {
		rmdir(CG_SUB);
		rmdir(CG_DIR);
	}
	if (variant->op->action == mqueue_mount_action)
		mq_unlink("/" MQ_PROBE);
}

/*
 * Every failslab and fail_page_alloc point (or those of one allocator, per
 * mode) on the path of the variant's call fails in turn. Each call must
 * succeed with its whole effect or fail with an allowed errno (or, for
 * execve past its point of no return, end in SIGSEGV) leaving no child,
 * namespace or mount behind.
 */
FAILNTH_SWEEP_OP(task, SWEEP_TIMEOUT, failnth_run)

TEST_HARNESS_MAIN
