/* kernels/program_sandbox.c: the limits a learner's program runs under,
 * applied in the forked child just before execve.
 *
 * rlimits bound CPU time, file size, core dumps, address space (emulator
 * runtime only: NVIDIA's runtime reserves huge ranges) and processes. But
 * RLIMIT_NPROC does nothing for root, and counts every task of the user,
 * so a fork bomb is stopped by a seccomp-bpf filter instead: fork, vfork
 * and clone without CLONE_THREAD fail with EAGAIN (as if the process limit
 * were hit), clone3 with ENOSYS (its flags live in memory a filter cannot
 * read; glibc then falls back to clone). Threads still work, so do the
 * CUDA runtimes. The filter survives execve and binds every descendant, so
 * nothing escapes the process group that the timeout kills. System calls
 * of another ABI (i386, x32) are refused so they cannot go around it. The
 * same filter keeps the program from touching anything but itself: signals
 * only to itself (not its worker, its grader, or -1: everything the user
 * runs), no ptrace, no other process's memory, no IPv4/IPv6 sockets, no
 * io_uring, no leaving its process group, no mounts, namespaces, keyrings,
 * clocks, modules or reboots (the grader may run as root).
 *
 * A confined program (ChildLimits.confine: a graded one) is also shut in
 * by Landlock (Linux 5.13+, unprivileged, also binds root): it reads only
 * the system's libraries and tools, the toolkit, cudojo's runtime
 * libraries, the loader's folders (ld.so.conf's, and those of the libraries
 * cudojo loaded: a container's driver, a bundle's lib/), its own
 * executable's folder and a few files of /etc and /dev, and writes only its
 * run folder (on a GPU also /dev/shm, the GPU's devices and the MPS folders
 * made for it); from ABI 4 it cannot bind or connect TCP, from ABI 6 not
 * signal or reach an abstract socket outside. Where the kernel lacks Landlock the program
 * runs without it (program_sandbox_landlock_abi() says so beforehand). A
 * graded program on the emulator runtime also gets no Unix socket
 * (ChildLimits.no_unix): Landlock does not cover connect() by path.
 *
 * A graded source's compile (nvcc's pipeline: ChildLimits.compiler) gets
 * the same filter except that it may fork and signal its own children (not
 * its worker, its grader or -1), rlimits, and Landlock over
 * program_sandbox_compile_paths(): the system, its headers, the toolkit;
 * writes only in the compile's folder. */
#include "kernels/program_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <link.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/strlist.h"
#include "base/xalloc.h"

#if defined(__x86_64__)
#define SANDBOX_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_ARCH AUDIT_ARCH_AARCH64
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LOW(n) offsetof(struct seccomp_data, args[n])
#else
#define ARG_LOW(n) (offsetof(struct seccomp_data, args[n]) + 4)
#endif
#define ARG0_LOW ARG_LOW(0)

#ifndef SYS_landlock_create_ruleset   /* a libc older than the kernel: the same numbers on every arch */
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

#define RET_ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

static void set_limit(int resource, rlim_t soft, rlim_t hard) {
    struct rlimit r = {soft, hard};
    struct rlimit cur;
    if (getrlimit(resource, &cur) == 0 && cur.rlim_max != RLIM_INFINITY) {
        /* An unprivileged process cannot raise its hard limit. */
        if (r.rlim_max > cur.rlim_max) r.rlim_max = cur.rlim_max;
        if (r.rlim_cur > r.rlim_max) r.rlim_cur = r.rlim_max;
    }
    setrlimit(resource, &r);
}

/* ---- the seccomp filter ---- */

/* Room for every instruction below (165 on x86-64); a filter that does not
 * fit is not installed, and a confined child then does not run. */
#define FILTER_MAX 256

typedef struct Filter {
    struct sock_filter v[FILTER_MAX];
    unsigned short n;
} Filter;

static void emit(Filter *f, struct sock_filter ins) {
    if (f->n < FILTER_MAX) f->v[f->n++] = ins;
}

/* With the syscall number in A: `nr` fails with errno `e`. */
static void deny(Filter *f, long nr, int e) {
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1));
    emit(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(e)));
}

/* With the syscall number in A: `nr` is allowed when the low 32 bits of
 * its first argument are one of v[0..2] (else EPERM), or, with `invert`,
 * fails with errno `e` when they are one of them (else allowed). Leaves A
 * holding the number for the next test when the call is not `nr`. */
static void arg0_in(Filter *f, long nr, const unsigned v[3], bool invert, int e) {
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 6));
    emit(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW));
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, v[0], 3, 0));
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, v[1], 2, 0));
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, v[2], 1, 0));
    emit(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, invert ? SECCOMP_RET_ALLOW : RET_ERRNO(EPERM)));
    emit(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, invert ? RET_ERRNO(e) : SECCOMP_RET_ALLOW));
}

/* With the syscall number in A: `nr` fails with errno `e` when the low 32
 * bits of its first argument are one of v[0..n-1] (n <= 8), else is allowed. */
static void arg0_refused(Filter *f, long nr, const unsigned *v, int n, int e) {
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, (unsigned char)(n + 3)));
    emit(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW));
    for (int i = 0; i < n; i++)
        emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, v[i], (unsigned char)(n - i), 0));
    emit(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    emit(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(e)));
}

/* With the syscall number in A, for a compiler's pipeline: `nr` (a signal
 * to the process or group in its first argument) is refused for the pids
 * in anc[0..1] (its worker and grader: 0 stands for none), allowed for its
 * own group (-self) and for any other positive pid or 0, refused for -1
 * and other groups. */
static void signal_rule(Filter *f, long nr, unsigned self, const pid_t anc[2]) {
    unsigned a0 = anc[0] > 0 ? (unsigned)anc[0] : self, a1 = anc[1] > 0 ? (unsigned)anc[1] : self;
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 7));
    emit(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW));
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, a0 == self ? 0xffffffffu : a0, 4, 0));
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, a1 == self ? 0xffffffffu : a1, 3, 0));
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)-(int)self, 1, 0));
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x80000000u, 1, 0));
    emit(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    emit(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(EPERM)));
}

/* With the syscall number in A: `nr` fails with EPERM when the file type
 * in the low 32 bits of its argument `arg` (a mode) is a character or
 * block device, else is allowed. As root a device node made in the run
 * folder (Landlock lets it write there) would read the raw disk. */
static void device_node_refused(Filter *f, long nr, int arg) {
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 6));
    emit(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(arg)));
    emit(f, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, S_IFMT));
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, S_IFCHR, 2, 0));
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, S_IFBLK, 1, 0));
    emit(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    emit(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(EPERM)));
}

#ifdef SANDBOX_ARCH
/* The namespaces a clone may not make (a compiler's fork may not either). */
#define CLONE_NEW_ANY (CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | \
                       CLONE_NEWCGROUP)

/* The filter of a program that may not fork, built in the child (it names
 * the child's own pid). Besides fork: signals only to itself (kill,
 * tgkill, sigqueue; never to its parent, its grader or pid -1), no
 * ptrace or reading another process's memory, no IPv4/IPv6/raw sockets
 * (with l->no_unix no Unix ones either: seccomp cannot see the path a
 * socket connects to), no io_uring (its operations would go around this
 * filter), no leaving its process group, no namespaces, mounts, keyrings,
 * modules, clocks or reboots, no chmod/chown by path (Landlock does not
 * cover them); for root no device nodes, I/O ports, file handles, BPF,
 * host names, accounting, quotas or kernel log. For a compiler's pipeline (l->compiler) the same, except
 * that it may fork and signal its own children (signal_rule). */
static void build_filter(Filter *f, const ChildLimits *l) {
    unsigned self = (unsigned)getpid();
    const unsigned me[3] = {0, self, (unsigned)-(int)self}, only_me[3] = {self, self, self};
    bool fork_ok = l->compiler;
    emit(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_ARCH, 1, 0));
    emit(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(ENOSYS)));
    emit(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
#if defined(__x86_64__)
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));     /* x32 */
    emit(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(ENOSYS)));
    if (!fork_ok) {
        deny(f, __NR_fork, EAGAIN);
        deny(f, __NR_vfork, EAGAIN);
    }
    deny(f, __NR_chmod, EPERM);
    deny(f, __NR_chown, EPERM);
    deny(f, __NR_lchown, EPERM);
    deny(f, __NR_iopl, EPERM);      /* root: the machine's I/O ports */
    deny(f, __NR_ioperm, EPERM);
    device_node_refused(f, __NR_mknod, 1);
#endif
    device_node_refused(f, __NR_mknodat, 2);
#ifdef __NR_clone3
    deny(f, __NR_clone3, ENOSYS);   /* glibc falls back to clone, whose flags the filter can read */
#endif
    if (fork_ok) {
        signal_rule(f, __NR_kill, self, l->ancestors);
        signal_rule(f, __NR_tgkill, self, l->ancestors);
        signal_rule(f, __NR_rt_sigqueueinfo, self, l->ancestors);
        signal_rule(f, __NR_rt_tgsigqueueinfo, self, l->ancestors);
    } else {
        arg0_in(f, __NR_kill, me, false, 0);
        arg0_in(f, __NR_tgkill, only_me, false, 0);
        arg0_in(f, __NR_rt_sigqueueinfo, only_me, false, 0);
        arg0_in(f, __NR_rt_tgsigqueueinfo, only_me, false, 0);
    }
    const unsigned families[4] = {AF_INET, AF_INET6, AF_PACKET, AF_UNIX};
    arg0_refused(f, __NR_socket, families, l->no_unix ? 4 : 3, EACCES);
    static const long denied[] = {
        __NR_tkill, __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev, __NR_setpgid, __NR_setsid,
        __NR_unshare, __NR_setns, __NR_mount, __NR_umount2, __NR_pivot_root, __NR_chroot, __NR_add_key,
        __NR_request_key, __NR_keyctl, __NR_init_module, __NR_finit_module, __NR_delete_module,
        __NR_kexec_load, __NR_reboot, __NR_swapon, __NR_swapoff, __NR_settimeofday, __NR_clock_settime,
        __NR_adjtimex, __NR_clock_adjtime, __NR_fchmodat, __NR_fchownat,
        /* Root's other ways around Landlock and the process group: a file by its handle (any inode),
           kernel programs, the host's name, accounting and quota files, the kernel log. */
        __NR_open_by_handle_at, __NR_bpf, __NR_sethostname, __NR_setdomainname, __NR_acct, __NR_quotactl,
        __NR_syslog,
#ifdef __NR_kexec_file_load
        __NR_kexec_file_load,
#endif
#ifdef __NR_pidfd_send_signal
        __NR_pidfd_send_signal,
#endif
#ifdef __NR_pidfd_getfd
        __NR_pidfd_getfd,
#endif
#ifdef __NR_io_uring_setup
        __NR_io_uring_setup,
#endif
#ifdef __NR_fchmodat2
        __NR_fchmodat2,
#endif
#ifdef __NR_open_tree
        __NR_open_tree, __NR_move_mount, __NR_fsopen, __NR_fsmount,
#endif
    };
    for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) deny(f, denied[i], EPERM);
    /* clone: threads only (a compiler: also processes), never new namespaces. */
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 5));
    emit(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW));
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEW_ANY, 2, 0));
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, fork_ok ? 0xffffffffu : CLONE_THREAD, 2, 0));
    emit(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(EAGAIN)));
    emit(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(EPERM)));
    emit(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
}
#endif

static bool install_filter(const ChildLimits *l) {
#ifdef SANDBOX_ARCH
    Filter f;
    f.n = 0;
    build_filter(&f, l);
    if (f.n >= FILTER_MAX) return false;
    struct sock_fprog fprog = {f.n, f.v};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) == 0;
#else
    (void)l;
    return false;
#endif
}

/* ---- Landlock ---- */

/* The parts of the uapi that an older linux/landlock.h lacks (ABI 4: TCP,
 * ABI 6: scopes). */
typedef struct LlRuleset {
    uint64_t handled_access_fs, handled_access_net, scoped;
} LlRuleset;
#define LL_NET_BIND_TCP (1ull << 0)
#define LL_NET_CONNECT_TCP (1ull << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ull << 0)
#define LL_SCOPE_SIGNAL (1ull << 1)
#define LL_FS_V1 ((1ull << 13) - 1)         /* EXECUTE .. MAKE_SYM */
#define LL_FS_REFER (1ull << 13)            /* ABI 2 */
#define LL_FS_TRUNCATE (1ull << 14)         /* ABI 3 */
#define LL_READ (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define LL_FILE_ONLY (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
                      LANDLOCK_ACCESS_FS_READ_FILE | LL_FS_TRUNCATE)

int program_sandbox_landlock_abi(void) {
    static int abi = -1;
    if (abi < 0) {
        long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
        abi = v > 0 ? (int)v : 0;
    }
    return abi;
}

/* Allows `access` beneath `path` (a file gets only the rights a file can have). */
static void landlock_allow(int ruleset, const char *path, uint64_t access) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return;     /* absent here: nothing to allow */
    struct stat st;
    if (fstat(fd, &st) == 0) {
        struct landlock_path_beneath_attr pb = {
            .allowed_access = S_ISDIR(st.st_mode) ? access : access & LL_FILE_ONLY,
            .parent_fd = fd,
        };
        syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
    }
    close(fd);
}

/* Confines the process to l->read_paths (read, list, execute) and
 * l->write_paths (everything), no TCP (ABI 4) and, from ABI 6, no signals
 * or abstract sockets to anyone outside. Async-signal-safe. */
static bool landlock_enter(const ChildLimits *l, int abi) {
    uint64_t fs = LL_FS_V1 | (abi >= 2 ? LL_FS_REFER : 0) | (abi >= 3 ? LL_FS_TRUNCATE : 0);
    LlRuleset attr = {
        .handled_access_fs = fs,
        .handled_access_net = abi >= 4 ? LL_NET_BIND_TCP | LL_NET_CONNECT_TCP : 0,
        .scoped = abi >= 6 ? LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL : 0,
    };
    size_t size = abi >= 6 ? sizeof attr : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (rs < 0) return false;
    for (const char *const *p = l->read_paths; p && *p; p++) landlock_allow(rs, *p, LL_READ);
    for (const char *const *p = l->write_paths; p && *p; p++) landlock_allow(rs, *p, fs);
    bool ok = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && syscall(SYS_landlock_restrict_self, rs, 0) == 0;
    close(rs);
    return ok;
}

bool program_sandbox_enter(const ChildLimits *l) {
    if (l->cpu_s > 0) set_limit(RLIMIT_CPU, (rlim_t)l->cpu_s, (rlim_t)l->cpu_s + 1);
    if (l->fsize > 0) set_limit(RLIMIT_FSIZE, (rlim_t)l->fsize, (rlim_t)l->fsize);
    set_limit(RLIMIT_CORE, 0, 0);
    if (l->as_bytes > 0) set_limit(RLIMIT_AS, (rlim_t)l->as_bytes, (rlim_t)l->as_bytes);
    if (l->nproc > 0) set_limit(RLIMIT_NPROC, (rlim_t)l->nproc, (rlim_t)l->nproc);
    if (l->nice > 0 && nice(l->nice) == -1) { /* best effort: errno tells, nobody to tell */ }
    bool ok = true;
    if (l->confine && l->landlock_abi > 0) ok = landlock_enter(l, l->landlock_abi);
    return (l->no_fork || l->compiler ? install_filter(l) : true) && ok;
}

long program_sandbox_nproc(long headroom) {
    uid_t uid = getuid();
    if (uid == 0) return 0;
    DIR *d = opendir("/proc");
    if (!d) return 0;
    long tasks = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char p[300];
        struct stat st;
        snprintf(p, sizeof p, "/proc/%s/task", e->d_name);
        if (stat(p, &st) != 0 || st.st_uid != uid) continue;
        tasks += st.st_nlink > 2 ? (long)st.st_nlink - 2 : 1;
    }
    closedir(d);
    return tasks + headroom;
}

/* ---- what a confined program may see ---- */

/* The system's programs and libraries, not /usr/share or /opt as a whole:
 * an installed course (PREFIX/share/cudojo/lessons, its solutions) lives
 * there. */
static const char *const SYSTEM_READ[] = {
    "/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libx32", "/usr/libexec",
    "/usr/local/bin", "/usr/local/lib", "/usr/share/zoneinfo", "/usr/share/locale", "/usr/share/nvidia",
    "/usr/share/glvnd", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/proc", "/sys",
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.preload", "/etc/localtime",
    "/etc/nsswitch.conf", "/etc/passwd", "/etc/group", "/etc/host.conf", "/etc/hosts", "/etc/nvidia",
    "/dev/random", "/dev/urandom",
};
static const char *const SYSTEM_WRITE[] = {"/dev/null", "/dev/zero", "/dev/full"};

/* The folders of /etc/ld.so.conf (and the files it includes, globs
 * expanded): where the loader finds libraries that are not under /usr/lib,
 * such as a container's driver (/usr/local/nvidia/lib64 holds libcuda.so.1
 * on our H200 machine). depth bounds includes that include each other. */
static void paths_add_ld_conf(StrList *r, const char *file, int depth) {
    FILE *f = depth < 4 ? fopen(file, "r") : NULL;
    if (!f) return;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        char *p = line + strspn(line, " \t");
        p[strcspn(p, "#\r\n")] = 0;
        for (size_t n = strlen(p); n && (p[n - 1] == ' ' || p[n - 1] == '\t');) p[--n] = 0;
        if (!strncmp(p, "include", 7) && (p[7] == ' ' || p[7] == '\t')) {
            char *pat = p + 8 + strspn(p + 8, " \t");
            char *full = pat[0] == '/' ? xstrdup(pat) : path_join("/etc", pat);
            glob_t g;
            if (glob(full, 0, NULL, &g) == 0)
                for (size_t i = 0; i < g.gl_pathc; i++) paths_add_ld_conf(r, g.gl_pathv[i], depth + 1);
            globfree(&g);
            free(full);
        } else if (p[0] == '/')
            strlist_add(r, xstrdup(p));
    }
    fclose(f);
}

/* The folders of the shared libraries loaded in this process (a bundle's
 * lib/, found by RPATH or the caller's LD_LIBRARY_PATH): the program's
 * runtime needs the same ones. The main program (empty name) is skipped. */
static int paths_add_loaded(struct dl_phdr_info *info, size_t size, void *arg) {
    (void)size;
    if (info->dlpi_name && info->dlpi_name[0] == '/') strlist_add(arg, path_dirname(info->dlpi_name));
    return 0;
}

/* What every confined child may read: the system's programs and
 * libraries, the loader's folders, the folders of the libraries cudojo
 * loaded, the toolkit (CUDA_HOME). */
static void paths_add_system(StrList *r) {
    for (size_t i = 0; i < sizeof SYSTEM_READ / sizeof SYSTEM_READ[0]; i++) strlist_add(r, xstrdup(SYSTEM_READ[i]));
    paths_add_ld_conf(r, "/etc/ld.so.conf", 0);
    dl_iterate_phdr(paths_add_loaded, r);
    const char *home = getenv("CUDA_HOME");
    strlist_add(r, xstrdup(home && *home ? home : "/usr/local/cuda"));
}

/* What this machine needs besides (a toolkit elsewhere, a driver's files): CUDOJO_SANDBOX_READ=DIR:DIR. */
static void paths_add_env(StrList *r) {
    const char *extra = getenv("CUDOJO_SANDBOX_READ");
    if (!extra || !*extra) return;
    char *copy = xstrdup(extra), *save = NULL;
    for (char *p = strtok_r(copy, ":", &save); p; p = strtok_r(NULL, ":", &save))
        if (*p) strlist_add(r, xstrdup(p));
    free(copy);
}

void program_sandbox_paths(const ProgramRunOptions *o, const char *exe, const char *cwd, char ***read_paths,
                           char ***write_paths) {
    StrList r = {0}, w = {0};
    paths_add_system(&r);
    if (o->runtime == PROGRAM_RT_EMU && program_emurt_dir()) strlist_add(&r, xstrdup(program_emurt_dir()));
    if (o->runtime == PROGRAM_RT_CUDA && program_inject_path()) strlist_add(&r, path_dirname(program_inject_path()));
    strlist_add(&r, path_dirname(exe));
    paths_add_env(&r);
    strlist_add(&w, xstrdup(cwd));
    /* MPS's pipe and log folders, which the caller made for this program (program_mps.c). */
    for (int i = 0; i < o->n_extra_env; i++) {
        const char *e = o->extra_env[i], *eq = strchr(e, '=');
        if (eq && (!strncmp(e, "CUDA_MPS_PIPE_DIRECTORY=", 24) || !strncmp(e, "CUDA_MPS_LOG_DIRECTORY=", 23)) &&
            eq[1] == '/')
            strlist_add(&w, xstrdup(eq + 1));
    }
    for (size_t i = 0; i < sizeof SYSTEM_WRITE / sizeof SYSTEM_WRITE[0]; i++) strlist_add(&w, xstrdup(SYSTEM_WRITE[i]));
    /* On a GPU: its devices (nvidia0, nvidiactl, nvidia-uvm, ...) and /dev/shm, which NVIDIA's
       runtime may use; the emulator's runtime needs neither (/dev/shm is memory nobody measures). */
    DIR *d = o->runtime == PROGRAM_RT_CUDA ? opendir("/dev") : NULL;
    if (d) strlist_add(&w, xstrdup("/dev/shm"));
    /* NVIDIA's driver names the threads it starts by writing
       /proc/self/task/TID/comm, and fails the first CUDA call when it cannot
       ("OS call failed or operation not supported on this OS": every graded
       GPU program did, on the H200, 2026-12-02). Landlock opens the path in
       the child (landlock_enter), so "self" is the program itself: only its
       own threads' files. */
    if (d) strlist_add(&w, xstrdup("/proc/self/task"));
    for (struct dirent *e; d && (e = readdir(d));)
        if (!strncmp(e->d_name, "nvidia", 6)) strlist_add(&w, xasprintf("/dev/%s", e->d_name));
    if (d) closedir(d);
    if (!r.v) strlist_add(&r, xstrdup("/nonexistent"));
    *read_paths = r.v;
    *write_paths = w.v;
}

void program_sandbox_paths_free(char ***read_paths, char ***write_paths) {
    strlist_free_v(read_paths);
    strlist_free_v(write_paths);
}

/* ---- what a confined compile may see ---- */

Diag *program_env_mib(const char *name, long long def_mib, long long *bytes) {
    const char *e = getenv(name);
    *bytes = def_mib << 20;
    if (!e || !*e) return NULL;
    char *end;
    errno = 0;
    long long v = strtoll(e, &end, 10);
    if (errno || end == e || *end || *e == ' ' || v < 1 || v > PROGRAM_ENV_MIB_MAX)
        return diag_error("config", "%s=%s: give a whole number of MiB from 1 to %lld", name, e,
                          (long long)PROGRAM_ENV_MIB_MAX);
    *bytes = v << 20;
    return NULL;
}

long long program_sandbox_compile_as_bytes(void) {
    long long b;
    Diag *bad = program_env_mib("CUDOJO_COMPILE_AS_MB", 4096, &b);   /* refused where a compile starts */
    diag_free(&bad);
    return b;
}

void program_sandbox_compile_paths(const char *nvcc, const char *workdir, char ***read_paths, char ***write_paths) {
    StrList r = {0}, w = {0};
    paths_add_system(&r);
    /* gcc's headers and the toolkit's: the toolkit nvcc belongs to (bin/..) and CUDA_HOME. */
    strlist_add(&r, xstrdup("/usr/include"));
    strlist_add(&r, xstrdup("/usr/local/include"));
    if (nvcc) {
        char *bin = path_dirname(nvcc);
        strlist_add(&r, path_dirname(bin));
        char *real = realpath(nvcc, NULL);
        if (real) {
            char *rbin = path_dirname(real);
            strlist_add(&r, path_dirname(rbin));
            free(rbin);
            free(real);
        }
        free(bin);
    }
    /* The host compiler nvcc takes from PATH, when it lives elsewhere than /usr/bin or /bin
       (a gcc-toolset under /opt): its installation (bin/..). */
    static const char *const host_cc[] = {"gcc", "g++", "cc", "c++"};
    for (size_t i = 0; i < sizeof host_cc / sizeof host_cc[0]; i++) {
        char *found = proc_find_in_path(host_cc[i]);
        char *real = found ? realpath(found, NULL) : NULL;
        if (real && strncmp(real, "/usr/bin/", 9) && strncmp(real, "/bin/", 5)) {
            char *bin = path_dirname(real), *prefix = path_dirname(bin);
            /* Not a shared prefix as a whole (/usr/local/share may hold an installed course). */
            if (!strcmp(prefix, "/usr/local") || !strcmp(prefix, "/usr") || !strcmp(prefix, "/")) {
                strlist_add(&r, bin);
                strlist_add(&r, path_join(prefix, "libexec"));
                free(prefix);
            } else {
                strlist_add(&r, prefix);
                free(bin);
            }
        }
        free(real);
        free(found);
    }
    paths_add_env(&r);
    strlist_add(&w, xstrdup(workdir));
    for (size_t i = 0; i < sizeof SYSTEM_WRITE / sizeof SYSTEM_WRITE[0]; i++) strlist_add(&w, xstrdup(SYSTEM_WRITE[i]));
    *read_paths = r.v;
    *write_paths = w.v;
}
